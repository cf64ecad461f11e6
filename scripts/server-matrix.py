#!/usr/bin/env python3
"""Tabulates the server matrix's report (one JSON line per server run, written by
ServerMatrixTests) as the Markdown table of docs/troubleshooting.md's compatibility
section.

usage: scripts/server-matrix.py REPORT.jsonl
"""
import json
import sys


def main(path):
    try:
        with open(path, encoding="utf-8") as report:
            runs = [json.loads(line) for line in report if line.strip()]
    except FileNotFoundError:
        print(f"{sys.argv[0]}: no report at {path}: the matrix did not run", file=sys.stderr)
        return 1
    print("| Server | Debian package | Result | Steps passed | What it does differently |")
    print("|---|---|---|---|---|")
    failed = False
    for run in runs:
        version = run.get("package", "")
        steps = run.get("steps", [])
        if run["result"] == "could not start":
            print(f"| {run['server']} | | could not start | | {run['reason']} |")
            continue
        failed |= run["result"] != "pass"
        passed = sum(step["result"] == "pass" for step in steps)
        unapplied = sum(step["result"] == "n/a" for step in steps)
        unapplied_text = f" ({unapplied} n/a)" if unapplied else ""
        # What differs: the notes of passing and n/a steps; a failed step is named as such.
        notes = []
        for step in steps:
            if step["result"] == "fail":
                notes.append(f"**{step['name']} failed**: {step['note']}")
            elif step["result"] == "n/a":
                notes.append(f"{step['name']}: n/a ({step['note']})")
            elif step["note"]:
                notes.append(step["note"])
        differs = "; ".join(dict.fromkeys(notes)).replace("|", "\\|").replace("\n", " ")
        print(f"| {run['server']} | {version} | {run['result']} | {passed} of {len(steps)}{unapplied_text} | {differs} |")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
