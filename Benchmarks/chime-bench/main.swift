import Glibc

// Everything lives in other files: closures written here would be main-actor isolated.
exit(BenchCommand.run(Array(CommandLine.arguments.dropFirst())))
