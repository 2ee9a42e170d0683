#!/usr/bin/env python3
"""Flags Swift constructs that need a newer compiler than the package's minimum, Swift 6.0.

The manifests say swift-tools-version 6.0 and CI runs only a newer toolchain, which accepts these
silently. Each rule names its Swift Evolution proposal; CONTRIBUTING.md, "Toolchain", lists them
with the ones no grep can find. Run from the repository root: python3 .ci/toolchain-floor.py
"""

import pathlib
import re
import sys

# Benchmarks/ is left out: its manifest needs tools 6.1 (package-benchmark's).
ROOTS = ["Sources", "Tests", "Examples", "Integrations", "Fuzz"]

# (proposal, what it adds, pattern over the file with comments and strings blanked out)
RULES = [
    ("SE-0481, Swift 6.2", "`weak let`", re.compile(r"\bweak\s+let\b")),
    ("SE-0439, Swift 6.1", "a trailing comma before `)`", re.compile(r",\s*\)")),
    ("SE-0449, Swift 6.1", "`nonisolated` on a type or extension",
     re.compile(r"\bnonisolated\s+(extension|struct|class|final|enum|actor|protocol)\b")),
    ("SE-0461, Swift 6.2", "`nonisolated(nonsending)` or `@concurrent`",
     re.compile(r"nonisolated\(nonsending\)|@concurrent\b")),
    ("SE-0470, Swift 6.2", "an isolated conformance", re.compile(r":\s*@MainActor\s+[A-Z]\w*\s*[{,]")),
    ("SE-0371, Swift 6.2", "`isolated deinit`", re.compile(r"\bisolated\s+deinit\b")),
    ("SE-0451, Swift 6.2", "a raw identifier", re.compile(r"`[^`\n]*[^\w`\n][^`\n]*`")),
    ("SE-0453, Swift 6.2", "`InlineArray`", re.compile(r"\bInlineArray\b")),
    ("SE-0447, Swift 6.2", "`Span`", re.compile(r"\b(Raw)?Span<|\bMutableSpan\b")),
    ("SE-0472, Swift 6.2", "`Task.immediate`", re.compile(r"\bTask\.immediate\b|\bimmediate\(")),
    ("SE-0475, Swift 6.2", "`Observations`", re.compile(r"\bObservations\s*[({]")),
    ("ST-0006, Swift 6.1", "the error returned by `#expect(throws:)`",
     re.compile(r"=\s*(try\s+)?#(expect|require)\(\s*throws")),
    ("ST-0005, Swift 6.1", "a range-based confirmation", re.compile(r"expectedCount:\s*[^,)]*\.\.[.<]")),
    ("ST-0007, Swift 6.1", "a test scoping trait", re.compile(r"\bTestScoping\b")),
]


def blank(source: str) -> str:
    """Blanks comments and string literals (keeping newlines), so that prose never matches."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('""' + re.sub(r"[^\n]", " ", source[i + 2 : j - 2]) + '""')
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] not in '"\n':
                j += 2 if source[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + " " * (j - i - 2) + '"')
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def main() -> int:
    found = 0
    for root in ROOTS:
        for path in sorted(pathlib.Path(root).rglob("*.swift")):
            # Build folders (.build, .build-tsan, …) hold fetched dependencies, not ours.
            if any(part.startswith(".build") for part in path.parts) or "Generated" in path.parts:
                continue
            text = blank(path.read_text(encoding="utf-8"))
            for proposal, what, pattern in RULES:
                for match in pattern.finditer(text):
                    line = text.count("\n", 0, match.start()) + 1
                    print(f"{path}:{line}: {what} needs {proposal}; the package's minimum is Swift 6.0")
                    found += 1
    print(f"toolchain-floor: {found} construct(s) newer than Swift 6.0")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
