#!/usr/bin/env python3
"""The public API of each library product, as sorted one-line signatures, and a check of it.

    python3 .ci/api-baseline.py            # compare Sources/ with .ci/api/*.txt; exit 1 on a difference
    python3 .ci/api-baseline.py --update   # rewrite .ci/api/*.txt from Sources/

One file per library target (`.ci/api/NetworkIndicator.txt`, `NetworkIndicatorUI.txt`,
`NetworkIndicatorTesting.txt`): every `public` or `open` declaration, every member of a public
protocol, and every case of a public enum, each on one line as written in the source (comments
dropped, whitespace collapsed, the body cut off), prefixed by the type or extension it sits in and
by the `#if` conditions around it. Sorted, so that a change of the surface is a small reviewed diff
of these files, whatever moved inside the sources. `@_spi` declarations are left out, as are
`public import` lines.

Read from the sources rather than from a symbol graph: on Linux the compiler leaves out the UIKit,
AppKit and SwiftUI code of NetworkIndicatorUI, which is most of that product's surface, and the
Apple SDK check type-checks without emitting one. What the compiler infers (conformances of
extensions, default implementations) shows only as the lines that declare it.
"""
import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / ".ci" / "api"
TARGETS = ["NetworkIndicator", "NetworkIndicatorUI", "NetworkIndicatorTesting"]

KEYWORDS = r"(func|var|let|init|subscript|struct|class|enum|protocol|actor|typealias|associatedtype|macro|case)"
MODIFIERS = (r"(?:public|open|static|final|class|override|mutating|nonisolated|convenience|required|indirect|"
             r"lazy|weak|unowned|dynamic|optional|package|internal|fileprivate|private|"
             r"(?:private|internal|fileprivate|package)\(set\))")
DECL = re.compile(rf"^((?:@[\w.]+(?:\([^)]*\))?\s+)*)((?:{MODIFIERS}\s+)*){KEYWORDS}\b")
TYPE_HEAD = re.compile(r"^(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:\w+\s+)*?(extension|struct|class|enum|protocol|actor)\s+([\w.]+)")


def strip_comments(text: str) -> str:
    """Drops `/* */` and `//` comments, leaving string literals (which hold no `//` here) alone."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = []
    for line in text.splitlines():
        out, in_string, i = [], False, 0
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                in_string = not in_string
            if not in_string and line.startswith("//", i):
                break
            out.append(c)
            i += 1
        lines.append("".join(out).rstrip())
    return "\n".join(lines)


def signature(lines: list[str], start: int) -> tuple[str, int]:
    """The declaration starting at `start`, joined to one line and cut before its body."""
    text, depth, i = "", 0, start
    while i < len(lines):
        line = lines[i].strip()
        for position, c in enumerate(line):
            if c in "([<":
                depth += 1
            elif c in ")]>" and not (c == ">" and position > 0 and line[position - 1] == "-"):
                depth -= 1
            elif c == "{" and depth <= 0:
                body = line[position:]
                text += " " + line[:position]
                accessors = re.match(r"\{\s*((?:get|set|async|throws|\s)+)\}", body)
                return norm(text + (" { " + norm(accessors.group(1)) + " }" if accessors else "")), i
        text += " " + line
        ends = depth <= 0 and not re.search(r"(,|\(|->|:|=|&)$", line)
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if ends and not re.match(r"^(->|where\b|throws\b|async\b|rethrows\b|\{|&)", following):
            return norm(text), i
        i += 1
    return norm(text), i


def norm(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+\)", ")", text)
    return re.sub(r",\)", ")", text)


def scan(path: pathlib.Path) -> list[str]:
    lines = strip_comments(path.read_text(encoding="utf-8")).splitlines()
    found: list[str] = []
    conditions: list[str] = []
    # (depth at which the type's body opens, name, kind, public)
    types: list[tuple[int, str, str, bool]] = []
    depth = 0
    pending_attributes: list[str] = []
    spi = False
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        directive = re.match(r"^#(if|elseif|else|endif)\b\s*(.*)", line)
        if directive:
            kind, condition = directive.groups()
            if kind == "if":
                conditions.append(condition)
            elif kind == "elseif":
                conditions[-1] = f"!({conditions[-1]}) && {condition}"
            elif kind == "else":
                conditions[-1] = f"!({conditions[-1]})"
            else:
                conditions.pop()
            i += 1
            continue
        if re.match(r"^@[\w.]+(\(.*\))?$", line):
            if line.startswith("@_spi("):
                spi = True
            pending_attributes.append(line)
            i += 1
            continue
        owner = types[-1] if types and types[-1][0] == depth else None
        match = DECL.match(line)
        end = i
        if match and not spi and "@_spi(" not in line and not re.match(r"^public\s+import\b", line):
            modifiers = match.group(2).split()
            keyword = match.group(3)
            in_protocol = owner is not None and owner[2] == "protocol" and owner[3]
            in_public_enum = owner is not None and owner[2] == "enum" and owner[3]
            listed = ("public" in modifiers or "open" in modifiers) and keyword != "case"
            listed = listed or (in_protocol and keyword != "case")
            listed = listed or (in_public_enum and keyword == "case")
            if listed:
                text, end = signature(lines, i)
                text = " ".join(pending_attributes + [text])
                place = ".".join(t[1] for t in types).replace(".extension ", ".") or "(top level)"
                where = "".join(f"#if {c} " for c in conditions)
                found.append(f"{where}{place}: {text}")
        head = TYPE_HEAD.match(line)
        segment = "\n".join(lines[i:end + 1])
        opens, closes = segment.count("{"), segment.count("}")
        if head and opens > closes:
            is_public = bool(re.search(r"\b(public|open)\b", line)) or head.group(1) == "extension"
            name = ("extension " if head.group(1) == "extension" else "") + head.group(2)
            types.append((depth + 1, name, head.group(1), is_public))
        depth += opens - closes
        while types and types[-1][0] > depth:
            types.pop()
        if line and not line.startswith("@"):
            pending_attributes, spi = [], False
        i = end + 1
    return found


def surface(target: str) -> str:
    entries: list[str] = []
    for path in sorted((ROOT / "Sources" / target).rglob("*.swift")):
        entries += scan(path)
    return "\n".join(sorted(entries)) + "\n"


def main() -> int:
    update = "--update" in sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    differs = False
    for target in TARGETS:
        now = surface(target)
        path = OUT / f"{target}.txt"
        if update:
            path.write_text(now, encoding="utf-8")
            print(f"api-baseline: {path.relative_to(ROOT)}: {now.count(chr(10))} declarations")
            continue
        recorded = path.read_text(encoding="utf-8") if path.exists() else ""
        if recorded != now:
            differs = True
            sys.stdout.writelines(difflib.unified_diff(
                recorded.splitlines(keepends=True), now.splitlines(keepends=True),
                f"{path.relative_to(ROOT)} (recorded)", f"{target} (in Sources/)"))
        else:
            print(f"api-baseline: {target}: {now.count(chr(10))} declarations, as recorded")
    if differs:
        print("api-baseline: the public API differs from the baseline. If the change is meant, run "
              "`python3 .ci/api-baseline.py --update`, commit .ci/api/, and add removed or renamed "
              "names to CHANGELOG.md's Migration table.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
