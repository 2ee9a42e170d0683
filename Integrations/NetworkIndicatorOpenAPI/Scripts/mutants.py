#!/usr/bin/env python3
"""Mutation testing of the openapi middleware's sources, run by hand (not in CI: it builds once
per mutant).

    python3 Integrations/NetworkIndicatorOpenAPI/Scripts/mutants.py [N] [seed] [--list]

Each mutant changes one line of one file in Sources/NetworkIndicatorOpenAPI/ (not Internal/, the
lock box) by one operator:
a comparison flipped (`<` and `<=`, `>` and `>=`, `==` and `!=`), `&&` and `||` swapped, `true`
and `false` swapped, `+` and `-` swapped, `min(` and `max(` swapped, `- 1` and `+ 1` dropped, or a
statement line dropped (a call or an assignment that ends the line; never a declaration or a
brace, never an initializer's `self.x = x`, which would not compile). Comment lines and doc comments are never mutated. A seeded draw takes N mutants (default
40, seed 1) round-robin over the files. Each is written in place, built with `swift build
--build-tests`, and run with `swift test --skip-build` under a 60 s timeout (a timeout counts as
killed); the file is restored afterwards, whatever happens. A mutant that does not compile is
skipped and replaced by the next one drawn. The markdown table goes to stdout.
"""
import os
import random
import re
import signal
import subprocess
import sys
import time

PACKAGE = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
SOURCES = os.path.join(PACKAGE, "Sources", "NetworkIndicatorOpenAPI")
TIMEOUT = 60  # the unmutated suite takes about 2 s; a mutant that hangs a test is killed

SWAPS = [
    (r"(?<![<>=!])<=(?!=)", "<"),
    (r"(?<![<>=!-])<(?![<=])", "<="),
    (r"(?<![<>=!-])>=(?!=)", ">"),
    (r"(?<![<>=!-])>(?![>=])", ">="),
    (r"(?<![=!<>])==(?!=)", "!="),
    (r"!=(?!=)", "=="),
    (r"&&", "||"),
    (r"\|\|", "&&"),
    (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"),
    (r"\bmin\(", "max("),
    (r"\bmax\(", "min("),
    (r" \+ (?!=)", " - "),
    (r" - (?!=)", " + "),
    (r" - 1\b", ""),
    (r" \+ 1\b", ""),
]

STATEMENT = re.compile(r"^\s*(?:[A-Za-z_][\w.?!]*(?:\(.*\))?\s*(?:[-+]?=)\s*.+|[A-Za-z_][\w.?]*\(.*\))\s*$")
NOT_A_STATEMENT = re.compile(r"^\s*(let|var|guard|if|else|return|case|for|while|func|init|deinit|switch|"
                             r"static|private|public|struct|class|enum|extension|import|typealias|"
                             r"defer|throw|try|@|\}|\{|self\.\w+ = )|.*\{\s*$")


def mutants_of(path):
    lines = open(path).read().split("\n")
    found = []
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or stripped.startswith("import "):
            continue
        code = line.split(" //")[0]
        for pattern, replacement in SWAPS:
            for match in re.finditer(pattern, code):
                # Skip `->`, generics and string contents.
                if code.count('"', 0, match.start()) % 2:
                    continue
                if pattern.startswith("(?<![<>=!-])<") and re.match(r"[A-Z]", code[match.end():match.end() + 1] or " "):
                    continue
                if pattern.startswith("(?<![<>=!-])>") and code[match.start() - 1:match.start()].isalnum() and code[match.end():match.end() + 1] in ("", " ", "?", "(", ")", ","):
                    if re.search(r"<[A-Za-z]", code[:match.start()]):
                        continue
                mutated = code[:match.start()] + replacement + code[match.end():]
                found.append((number, mutated + line[len(code):], f"{match.group(0)!r} -> {replacement!r}"))
        if STATEMENT.match(code) and not NOT_A_STATEMENT.match(code):
            found.append((number, None, "drop the statement"))
    return lines, found


def run(command, timeout=None):
    # A session of its own, so that a timeout ends the test process that `swift test` started
    # too: left running, a hung test binary would slow every later mutant.
    process = subprocess.Popen(command, cwd=PACKAGE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None, "timeout"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    count = int(args[0]) if args else 40
    seed = int(args[1]) if len(args) > 1 else 1
    files = sorted(os.path.join(SOURCES, f) for f in os.listdir(SOURCES) if f.endswith(".swift"))
    pools = {}
    rng = random.Random(seed)
    for path in files:
        lines, found = mutants_of(path)
        rng.shuffle(found)
        pools[path] = (lines, found)
    order = []
    while any(pools[p][1] for p in files):
        for path in files:
            if pools[path][1]:
                order.append((path, pools[path][0], pools[path][1].pop()))
    if "--list" in sys.argv:
        for path, lines, (number, mutated, what) in order[:count]:
            print(f"{os.path.relpath(path, PACKAGE)}:{number + 1}: {what}: {(mutated if mutated is not None else lines[number]).strip()}")
        return
    code, output = run(["swift", "build", "--build-tests"])
    assert code == 0, output
    code, output = run(["swift", "test", "--skip-build"], TIMEOUT)
    assert code == 0, "the unmutated package must pass"
    rows = []
    for path, lines, (number, mutated, what) in order:
        if len(rows) >= count:
            break
        original = "\n".join(lines)
        changed = lines[:number] + ([] if mutated is None else [mutated]) + lines[number + 1:]
        try:
            open(path, "w").write("\n".join(changed))
            code, output = run(["swift", "build", "--build-tests"])
            if code != 0:
                print(f"skipped (does not compile): {os.path.basename(path)}:{number + 1} {what}", file=sys.stderr)
                continue
            started = time.time()
            code, output = run(["swift", "test", "--skip-build"], TIMEOUT)
            failing = re.findall(r"✘ Test (\w+)\(", output)
            verdict = "killed" if code != 0 else "survived"
            detail = "timeout" if code is None else (failing[0] if failing else ("crash" if code else ""))
            rows.append((os.path.relpath(path, PACKAGE), number + 1, what, lines[number].strip(), verdict, detail))
            print(f"{len(rows)}/{count} {verdict} {os.path.basename(path)}:{number + 1} {what} "
                  f"({time.time() - started:.0f} s) {detail}", file=sys.stderr)
        finally:
            open(path, "w").write(original)
    run(["swift", "build", "--build-tests"])
    print("| # | file:line | mutation | original line | verdict | first failing test |")
    print("| ---: | --- | --- | --- | --- | --- |")
    for index, (path, line, what, original, verdict, detail) in enumerate(rows, 1):
        original = original.replace("|", "\\|")
        what = what.replace("|", "\\|")
        print(f"| {index} | `{os.path.basename(path)}:{line}` | {what} | `{original}` | {verdict} | {detail} |")
    killed = sum(1 for row in rows if row[4] == "killed")
    print(f"\nscore: {killed}/{len(rows)} killed")


if __name__ == "__main__":
    main()
