import ChimeAPI

// Writes the contract file of dbus/ from ChimeAPI: `make api-xml`.
print(ContractFile.text, terminator: "")
