#!/usr/bin/env python3
"""Keeps the documentation's UIKit and SwiftUI samples quoted from compiled files.

    python3 .ci/doc-samples.py          check; exit 1 with the reasons if anything is off
    python3 .ci/doc-samples.py --fix    rewrite the quoted blocks from their regions

A region is the lines between `// docs:begin NAME` and `// docs:end` in a Swift file under
Examples/DocSamples or Examples/NetworkIndicatorExampleApp (type-checked against Apple's SDKs by
.ci/apple-sdk-check.sh). A documentation block quotes one with `<!-- sample: NAME -->` on the
line right above its ```swift fence; the block must equal the region, dedented. Checked: every
```swift block in README.md and in the DocC catalog whose code (comments aside) uses UIKit or
SwiftUI must quote a region; every quoted region must exist and match.
"""

import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIRS = [ROOT / "Examples/DocSamples", ROOT / "Examples/NetworkIndicatorExampleApp"]
DOCS = [ROOT / "README.md", *sorted((ROOT / "Sources").glob("*/*.docc/*.md"))]
# What makes a block Apple-UI code, which Linux cannot compile.
APPLE_UI = re.compile(
    r"\b(UIKit|SwiftUI|UIView\w*|UITableView\w*|UIApplication\w*|UIResponder|some View|some Scene"
    r"|@State|@Environment|networkActivity(Overlay|Scope|Task)|StatusBarNetworkIndicatorOutput"
    r"|NetworkActivityOverlayOutput|NetworkActivityOverlayView)\b|: View\b"
)
BEGIN = re.compile(r"^\s*// docs:begin ([\w-]+)\s*$")
END = re.compile(r"^\s*// docs:end\s*$")
MARKER = re.compile(r"^<!-- sample: ([\w-]+) -->$")


def regions() -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for folder in SAMPLE_DIRS:
        for path in sorted(folder.rglob("*.swift")):
            name, lines = None, []
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if (match := BEGIN.match(line)) :
                    name, lines, start = match.group(1), [], number
                elif END.match(line) and name:
                    where = f"{path.relative_to(ROOT)}:{start}"
                    if name in found:
                        sys.exit(f"doc-samples: region {name} twice: {found[name][1]} and {where}")
                    found[name] = (textwrap.dedent("\n".join(lines)).strip("\n") + "\n", where)
                    name = None
                elif name:
                    lines.append(line)
    return found


def main() -> int:
    fix = "--fix" in sys.argv[1:]
    known = regions()
    problems: list[str] = []
    quoted = 0
    for doc in DOCS:
        lines = doc.read_text().splitlines(keepends=True)
        out: list[str] = []
        index = 0
        while index < len(lines):
            line = lines[index]
            if line.strip() != "```swift":
                out.append(line)
                index += 1
                continue
            close = next((j for j in range(index + 1, len(lines)) if lines[j].strip() == "```"), None)
            if close is None:
                problems.append(f"{doc.relative_to(ROOT)}:{index + 1}: unclosed ```swift block")
                out.extend(lines[index:])
                break
            body = "".join(lines[index + 1 : close])
            where = f"{doc.relative_to(ROOT)}:{index + 1}"
            marker = MARKER.match(out[-1].strip()) if out else None
            if marker:
                name = marker.group(1)
                if name not in known:
                    problems.append(f"{where}: quotes region {name}, which no sample file has")
                elif body != known[name][0]:
                    if fix:
                        body = known[name][0]
                    else:
                        problems.append(f"{where}: differs from region {name} ({known[name][1]}); run with --fix")
                quoted += 1
            elif APPLE_UI.search(re.sub(r"//.*", "", body)):  # code, not comments
                problems.append(
                    f"{where}: UIKit/SwiftUI code not quoted from a compiled sample;"
                    " put it in Examples/DocSamples and mark the block <!-- sample: NAME -->"
                )
            out.append(line)
            out.append(body)
            out.append(lines[close])
            index = close + 1
        if fix:
            doc.write_text("".join(out))
    for problem in problems:
        print(f"doc-samples: {problem}")
    print(f"doc-samples: {quoted} quoted blocks, {len(known)} regions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
