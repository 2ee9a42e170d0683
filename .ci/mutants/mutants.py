#!/usr/bin/env python3
"""The mutation run behind `bash .ci/mutants.sh`; see that script for the usage.

universalmutator (`mutate FILE swift --noCheck --mutantDir DIR`) generates every mutant of each
source file that this machine compiles (by default every `Sources/**/*.swift`; code inside an
`#if` branch that the compiler here leaves out is never mutated, and a file with no compiled code
is left out, so Apple-only files drop out on Linux by themselves). A seeded draw takes them round-robin over the files (each file's mutants in a seeded
order), so that every file gets the same share whatever its size. Each drawn mutant is written
into a scratch copy of the package (one copy, synced from the work tree at the start, whose build
folder is reused so that each build is incremental), built with `swift build --build-tests`, and
tested with `swift test` under a timeout; then the file is restored. Mutants that do not compile
are skipped and drawn again; those listed as equivalent are reported but neither built nor
counted, and so are those that compile to the same code as the original (see
`Scratch.compiles_to_same_code`). The run stops once N mutants have been tested.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import difflib
import fcntl
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORE_ROOT = "Sources/NetworkIndicator"
# Every source file of every target; `compiled_files` then keeps those with code that this
# machine compiles. A new file or target under Sources/ is drawn from without editing this.
DEFAULT_GLOBS = ("Sources/**/*.swift",)
# Top-level entries of the work tree that the scratch copy leaves out.
SYNC_EXCLUDED = re.compile(
    r"^(\.git|\.build.*|\.swiftpm|Benchmarks|crash-.*|leak-.*|timeout-.*|.*\.profraw)$"
)
NEWLINE_MARK = " ⏎ "
# Lines whose mutants say nothing about behaviour (imports, lone attributes, comments).
DEFAULT_IGNORED_LINES = [
    r"^\s*(@_exported\s+|public\s+|package\s+|internal\s+|@testable\s+)?import\s",
    r"^\s*@[A-Za-z_]\w*(\([^)]*\))?\s*$",
    r"^\s*(//|/\*|\*)",
]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fail(message: str, code: int = 2) -> None:
    log(f"mutants: {message}")
    sys.exit(code)


# MARK: - Mutants


@dataclasses.dataclass
class Mutant:
    path: str  # relative to the repository
    line: int  # 1-based, in the original file
    old: list[str]  # the original lines replaced (without newlines)
    new: list[str]  # what replaces them

    @property
    def short_path(self) -> str:
        prefix = CORE_ROOT + "/"
        return self.path[len(prefix):] if self.path.startswith(prefix) else self.path

    @property
    def old_text(self) -> str:
        return NEWLINE_MARK.join(line.strip() for line in self.old)

    @property
    def new_text(self) -> str:
        return NEWLINE_MARK.join(line.strip() for line in self.new)

    @property
    def location(self) -> str:
        return f"{self.short_path}:{self.line}"

    def apply(self, original: str) -> str:
        lines = original.split("\n")
        start = self.line - 1
        assert lines[start:start + len(self.old)] == self.old, f"{self.location} does not match"
        lines[start:start + len(self.old)] = self.new
        return "\n".join(lines)


def matching_files(repo: Path, patterns: list[str]) -> list[str]:
    """The Swift files that `patterns` (globs from the repository root, default every source
    file) name."""
    found = {p.relative_to(repo).as_posix() for g in (patterns or DEFAULT_GLOBS) for p in repo.glob(g)
             if p.is_file() and p.suffix == ".swift"}
    return sorted(found)


# MARK: - What this machine compiles

DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b\s*(.*?)\s*(//.*)?$")
# Lines that compile to nothing: blank lines, comments, imports and directives.
NOT_CODE = re.compile(r"^\s*($|//|/\*|\*|#|(@_exported\s+|public\s+|package\s+|internal\s+|@testable\s+)?import\s)")


class Conditions:
    """Evaluates `#if` conditions as the compiler on this machine does for a debug build (the
    one `swift test` uses: `DEBUG` is set), by asking it: each condition guards a `#warning`
    in one probe file that `swiftc -typecheck` reads. Answers are cached on disk by the
    compiler's version."""

    def __init__(self, cache: Path):
        version = subprocess.run(["swiftc", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True).stdout
        self.path = cache / f"conditions-{hashlib.sha256(version.encode()).hexdigest()[:16]}.json"
        self.known: dict[str, bool] = json.loads(self.path.read_text()) if self.path.exists() else {}

    def evaluate(self, conditions: set[str]) -> None:
        unknown = sorted(c for c in conditions if c not in self.known)
        if not unknown:
            return
        answers = self.probe(unknown)
        if answers is None:  # one condition does not parse: ask one at a time
            answers = {}
            for condition in unknown:
                answer = self.probe([condition])
                if answer is None:
                    fail(f"swiftc cannot evaluate `#if {condition}`")
                answers.update(answer)
        self.known.update(answers)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.known, indent=1, sort_keys=True), encoding="utf-8")

    @staticmethod
    def probe(conditions: list[str]) -> dict[str, bool] | None:
        with tempfile.TemporaryDirectory(prefix="mutants-if-") as tmp:
            source = Path(tmp) / "probe.swift"
            source.write_text("".join(f'#if {c}\n#warning("probe {i}")\n#endif\n' for i, c in enumerate(conditions)),
                              encoding="utf-8")
            result = subprocess.run(["swiftc", "-typecheck", "-D", "DEBUG", source.name], cwd=tmp,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            return None
        active = {int(n) for n in re.findall(r"warning: probe (\d+)", result.stdout)}
        return {c: i in active for i, c in enumerate(conditions)}

    def __getitem__(self, condition: str) -> bool:
        return self.known[condition]


def directives(text: str) -> list[tuple[int, str, str]]:
    """The `#if` family of directives in `text`, as (0-based line, keyword, condition)."""
    found = []
    for number, line in enumerate(text.split("\n")):
        match = DIRECTIVE.match(line)
        if match:
            found.append((number, match.group(1), match.group(2)))
    return found


def compiled_lines(text: str, conditions: Conditions) -> list[bool]:
    """For each line of `text`, whether the compiler here reads it as code: outside every `#if`
    or in the branch it takes. Directive lines themselves count as not compiled."""
    lines = text.split("\n")
    marks = {number: (keyword, condition) for number, keyword, condition in directives(text)}
    # One frame per open `#if`: (the enclosing code is compiled, this branch is taken, a branch was taken).
    stack: list[tuple[bool, bool, bool]] = []
    compiled = []
    for number in range(len(lines)):
        active = all(frame[1] for frame in stack)
        if number not in marks:
            compiled.append(active)
            continue
        compiled.append(False)
        keyword, condition = marks[number]
        if keyword == "if":
            taken = active and conditions[condition]
            stack.append((active, taken, taken))
        elif keyword in ("elseif", "else") and stack:
            outer, _, any_taken = stack.pop()
            taken = outer and not any_taken and (keyword == "else" or conditions[condition])
            stack.append((outer, taken, any_taken or taken))
        elif keyword == "endif" and stack:
            stack.pop()
    return compiled


def compiled_files(repo: Path, files: list[str], conditions: Conditions) -> tuple[dict[str, list[bool]], list[str]]:
    """Which lines of each file the compiler here reads as code, for the files that have some;
    and the files left out because all their code sits in branches not taken here."""
    texts = {rel: (repo / rel).read_text(encoding="utf-8") for rel in files}
    conditions.evaluate({condition for text in texts.values() for _, keyword, condition in directives(text)
                         if keyword in ("if", "elseif")})
    kept, left_out = {}, []
    for rel, text in texts.items():
        compiled = compiled_lines(text, conditions)
        if any(flag and not NOT_CODE.match(line) for flag, line in zip(compiled, text.split("\n"))):
            kept[rel] = compiled
        else:
            left_out.append(rel)
    return kept, left_out


def mutants_of(repo: Path, rel: str, cache: Path, tool_key: str, ignored: list[re.Pattern[str]],
               compiled: list[bool]) -> list[Mutant]:
    """Every mutant universalmutator makes of `rel` (cached by the file's content) that changes
    only lines the compiler here reads as code."""
    text = (repo / rel).read_text(encoding="utf-8")
    key = hashlib.sha256((tool_key + "\0" + text).encode()).hexdigest()[:24]
    cached = cache / f"{key}.json"
    if cached.exists():
        raw = json.loads(cached.read_text(encoding="utf-8"))
    else:
        raw = generate(repo / rel, text)
        cache.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(raw), encoding="utf-8")
    mutants, seen = [], set()
    for line, old, new in raw:
        mutant = Mutant(rel, line, old, new)
        if any(pattern.search(old_line) for old_line in old for pattern in ignored):
            continue
        if not all(compiled[line - 1:line - 1 + max(len(old), 1)]):
            continue  # in a branch of an `#if` that is not compiled here, or a directive
        if "".join(mutant.old).split() == "".join(mutant.new).split():
            continue  # whitespace only
        if (line, mutant.new_text) in seen:
            continue  # the same change by two rules
        seen.add((line, mutant.new_text))
        mutants.append(mutant)
    return mutants


def generate(source: Path, text: str) -> list[tuple[int, list[str], list[str]]]:
    original = text.split("\n")
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        copy = Path(tmp) / source.name
        copy.write_text(text, encoding="utf-8")
        result = subprocess.run(
            ["mutate", copy.name, "swift", "--noCheck", "--mutantDir", str(out)],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        if result.returncode != 0:
            log(f"  warning: mutate failed on {source.name}; no mutants from it:\n{result.stdout[-800:]}")
            return []
        pattern = re.compile(re.escape(source.stem) + r"\.mutant\.(\d+)\.swift$")
        files = sorted((f for f in out.iterdir() if pattern.search(f.name)),
                       key=lambda f: int(pattern.search(f.name).group(1)))
        changes = []
        for f in files:
            change = single_change(original, f.read_text(encoding="utf-8", errors="replace").split("\n"))
            if change:
                changes.append(change)
        return changes


def single_change(original: list[str], mutated: list[str]) -> tuple[int, list[str], list[str]] | None:
    """The one region in which `mutated` differs from `original`, as (line, old, new)."""
    opcodes = [op for op in difflib.SequenceMatcher(None, original, mutated, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if not opcodes:
        return None
    i1, j1 = opcodes[0][1], opcodes[0][3]
    i2, j2 = opcodes[-1][2], opcodes[-1][4]
    if i1 == i2 and i1 > 0:  # a pure insertion: show it with the line before it
        i1, j1 = i1 - 1, j1 - 1
    return (i1 + 1, original[i1:i2], mutated[j1:j2])


def draw_order(mutants_by_file: dict[str, list[Mutant]], seed: int) -> list[Mutant]:
    """Round-robin over the files, each file's mutants in a seeded order."""
    rng = random.Random(seed)
    queues = []
    for rel in sorted(mutants_by_file):
        queue = list(mutants_by_file[rel])
        rng.shuffle(queue)
        queues.append(queue)
    start = rng.randrange(len(queues)) if queues else 0
    queues = queues[start:] + queues[:start]
    order = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


# MARK: - Equivalent mutants


@dataclasses.dataclass
class Equivalent:
    path: str
    line: int | None  # None: any line
    text: str
    reason: str


def normalized(code: str) -> str:
    return " ".join(code.replace(NEWLINE_MARK.strip(), " ").split())


def read_equivalents(path: Path) -> list[Equivalent]:
    """Entries `file:line: mutated line ## reason` (`file:*:` matches any line)."""
    if not path.exists():
        return []
    entries = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = re.match(r"^\s*([^:]+):(\d+|\*):\s?(.*?)(?:\s+##\s+(.*))?$", raw)
        if not match:
            fail(f"{path}:{number}: expected `file:line: mutated line ## reason`")
        file, line, text, reason = match.groups()
        if not reason:
            fail(f"{path}:{number}: an equivalent mutant needs a reason after ` ## `")
        entries.append(Equivalent(file.strip(), None if line == "*" else int(line), normalized(text), reason.strip()))
    return entries


AVAILABILITY = re.compile(r"#available\s*\(([^)]*)\)")
AVAILABILITY_REASON = ("Apple platform versions (and their order) are not evaluated here: on Linux `*` makes "
                       "`#available` true whatever they say; the Apple side is type-checked by "
                       ".ci/apple-sdk-check.sh")


def changes_only_apple_versions(mutant: Mutant) -> bool:
    """Whether the mutant changes only the arguments of an `#available` that keeps its `*`."""
    old, new = AVAILABILITY.search(mutant.old_text), AVAILABILITY.search(mutant.new_text)
    if not old or not new or "*" not in [part.strip() for part in new.group(1).split(",")]:
        return False
    rest = mutant.old_text[:old.start()] + mutant.old_text[old.end():]
    return normalized(rest) == normalized(mutant.new_text[:new.start()] + mutant.new_text[new.end():])


def equivalent_reason(mutant: Mutant, entries: list[Equivalent]) -> str | None:
    if changes_only_apple_versions(mutant):
        return AVAILABILITY_REASON
    for entry in entries:
        if not (mutant.path == entry.path or mutant.path.endswith("/" + entry.path)):
            continue
        if entry.line is not None and entry.line != mutant.line:
            continue
        if normalized(mutant.new_text) == entry.text:
            return entry.reason
    return None


# MARK: - The scratch copy


def sync(source: Path, target: Path) -> int:
    """Makes `target` a copy of the work tree, touching only files whose content differs (so
    that the reused build stays incremental). Returns how many files it wrote or removed."""
    changed = 0
    wanted = set()
    for root, dirs, files in os.walk(source):
        rel_root = Path(root).relative_to(source)
        if rel_root == Path("."):
            dirs[:] = [d for d in dirs if not SYNC_EXCLUDED.match(d)]
            files = [f for f in files if not SYNC_EXCLUDED.match(f)]
        dirs[:] = [d for d in dirs if not d.startswith(".build")]
        for name in files:
            rel = rel_root / name
            wanted.add(rel)
            src, dst = source / rel, target / rel
            if os.path.islink(src):
                continue
            if dst.exists() and dst.stat().st_size == src.stat().st_size and dst.read_bytes() == src.read_bytes():
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            os.utime(dst)  # newer than any earlier build of the old content
            changed += 1
    for root, dirs, files in os.walk(target):
        rel_root = Path(root).relative_to(target)
        if rel_root == Path("."):
            dirs[:] = [d for d in dirs if not SYNC_EXCLUDED.match(d)]
            files = [f for f in files if not SYNC_EXCLUDED.match(f)]
        dirs[:] = [d for d in dirs if not d.startswith(".build")]
        for name in files:
            if rel_root / name not in wanted:
                (target / rel_root / name).unlink()
                changed += 1
    for root, dirs, files in os.walk(target, topdown=False):
        if root != str(target) and not os.listdir(root) and not Path(root).relative_to(target).parts[0].startswith(".build"):
            os.rmdir(root)
    return changed


def run(command: list[str], cwd: Path, log_path: Path, timeout: float) -> tuple[int | None, float]:
    """Runs `command` in its own process group, output to `log_path`. Returns the exit status
    (`None` on timeout, after killing the whole group) and the seconds it took."""
    started = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 30)):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
            # `swift test` starts the test binary in a process group of its own, which the kill
            # above does not reach: end any test binary still running from this scratch copy.
            subprocess.run(
                ["pkill", "-KILL", "-f", re.escape(str(cwd.parent)) + r".*\.xctest"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            status = None
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    return status, time.monotonic() - started


FAILED_TEST = re.compile(r"^\S+ Test (?!run with )(.+?) (?:recorded an issue|failed after)")
XCTEST_FAILED = re.compile(r"Test Case '(?:-\[)?([^' \]]+(?: [^' \]]+)?)\]?' failed")
SIGNAL = re.compile(r"(?:unexpected )?signal code (\d+)", re.IGNORECASE)
TEST_COUNT = re.compile(r"Test run with (\d+) tests?")


def first_failure(log_text: str) -> str | None:
    for line in log_text.splitlines():
        match = FAILED_TEST.search(line) or XCTEST_FAILED.search(line)
        if match:
            return match.group(1)
    signal_match = SIGNAL.search(log_text)
    if signal_match:
        return f"a crash (signal {signal_match.group(1)})"
    return None


# MARK: - The run


@dataclasses.dataclass
class Outcome:
    mutant: Mutant
    result: str  # killed, survived, timeout, equivalent, uncompiled
    detail: str = ""
    seconds: float = 0
    same_code: bool = False  # an equivalent found by compiling, not listed


class Scratch:
    def __init__(self, root: Path, timeout: float, build_timeout: float, tests: str | None = None,
                 same_code_check: bool = True):
        self.root = root
        self.tests = tests
        self.same_code_check = same_code_check
        self.repo = root / "repo"
        self.build = root / "build"
        self.logs = root / "logs"
        # A second build folder, without debug information, for `compiles_to_same_code`.
        self.code_build = root / "same-code-build"
        self.timeout = timeout
        self.build_timeout = build_timeout
        self.code_digests: dict[str, str | None] = {}
        for folder in (self.repo, self.build, self.logs):
            folder.mkdir(parents=True, exist_ok=True)

    def build_tests(self, name: str) -> tuple[int | None, float]:
        return run(["swift", "build", "--build-tests", "--scratch-path", str(self.build)],
                   self.repo, self.logs / f"{name}-build.log", self.build_timeout)

    def code_digest(self, target: str, source: str, name: str) -> str | None:
        """The digest of `target`'s object files and module, built as the tests build it (debug,
        `-enable-testing`) but with no debug information, so that where code sits in the file
        does not count; `None` if it does not compile. Raises `TimeoutError` if the build timed
        out, and `RuntimeError` if `source` (just written) was not compiled again."""
        debug = self.code_build / "debug"
        # Removed first, so that a build that took the rewritten file for unchanged (same size,
        # same time stamp on a coarse file system) is caught instead of hashing the old code.
        source_object = debug / f"{target}.build" / f"{Path(source).name}.o"
        source_object.unlink(missing_ok=True)
        status, _ = run(["swift", "build", "--target", target, "--scratch-path", str(self.code_build),
                         "-Xswiftc", "-gnone"], self.repo, self.logs / f"{name}-code.log", self.build_timeout)
        if status is None:
            raise TimeoutError
        if status != 0:
            return None
        if not source_object.exists():
            raise RuntimeError(f"{source_object} was not rebuilt")
        parts = sorted((debug / f"{target}.build").glob("*.o")) + [debug / "Modules" / f"{target}.swiftmodule"]
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part.name.encode() + b"\0" + part.read_bytes())
        return digest.hexdigest()

    def compiles_to_same_code(self, mutant: Mutant, original: str, name: str) -> bool | None:
        """Trivial compiler equivalence: whether `mutant` compiles to exactly the code of the
        original (`None` if it does not compile). The original is compared with as many lines as
        the mutant, blank ones added after the changed lines, so that line numbers in messages
        agree; code that is the same instruction for instruction cannot behave differently.
        Whenever the check itself cannot decide (the original does not build, a build times out
        or skips the file), the answer is `False`, which claims nothing: the mutant is tested."""
        target = Path(mutant.path).parts[1]
        extra = len(mutant.new) - len(mutant.old)
        control = dataclasses.replace(mutant, new=mutant.old + [""] * extra).apply(original)
        mutated = dataclasses.replace(mutant, new=mutant.new + [""] * -extra).apply(original)
        file = self.repo / mutant.path
        key = mutant.path + ":" + hashlib.sha256(control.encode()).hexdigest()
        try:
            if key not in self.code_digests:
                file.write_text(control, encoding="utf-8")
                self.code_digests[key] = self.code_digest(target, mutant.path, name + "-original")
            if self.code_digests[key] is None:
                return False  # the original must build; if it does not, claim nothing
            file.write_text(mutated, encoding="utf-8")
            digest = self.code_digest(target, mutant.path, name)
            return None if digest is None else digest == self.code_digests[key]
        except (TimeoutError, RuntimeError) as error:
            log(f"    the same-code check could not decide ({error or 'build timed out'}); testing the mutant")
            return False
        finally:
            file.write_text(original, encoding="utf-8")

    def test(self, name: str, filter_: str | None = None) -> tuple[int | None, float, str]:
        command = ["swift", "test", "--skip-build", "--scratch-path", str(self.build)]
        filter_ = filter_ or self.tests
        if filter_:
            command += ["--filter", filter_]
        path = self.logs / f"{name}-test.log"
        status, seconds = run(command, self.repo, path, self.timeout)
        return status, seconds, path.read_text(encoding="utf-8", errors="replace")


def evaluate(scratch: Scratch, mutant: Mutant, index: int, confirm: bool) -> Outcome:
    file = scratch.repo / mutant.path
    original = file.read_text(encoding="utf-8")
    name = f"mutant-{index:03d}"
    started = time.monotonic()
    same = scratch.compiles_to_same_code(mutant, original, name) if scratch.same_code_check else False
    if same is None:
        return Outcome(mutant, "uncompiled", "", time.monotonic() - started)
    if same:
        return Outcome(mutant, "equivalent", "compiles to the same code as the original (trivial compiler "
                       "equivalence: object files and module identical, built without debug information)",
                       time.monotonic() - started, same_code=True)
    try:
        file.write_text(mutant.apply(original), encoding="utf-8")
        status, seconds = scratch.build_tests(name)
        if status != 0:
            return Outcome(mutant, "uncompiled", "build timed out" if status is None else "", seconds)
        status, test_seconds, output = scratch.test(name)
        seconds += test_seconds
        if status is None:
            return Outcome(mutant, "timeout", f"after {scratch.timeout:.0f} s", seconds)
        if status == 0:
            return Outcome(mutant, "survived", "", seconds)
        failure = first_failure(output) or f"swift test exit status {status}"
        if confirm and re.fullmatch(r"\w+\(.*\)", failure):
            # Rule out a flaky failure: the test alone must fail again, else the whole suite.
            status, extra, alone = scratch.test(name + "-confirm", re.escape(failure))
            seconds += extra
            ran = TEST_COUNT.search(alone)
            if status == 0 and ran and int(ran.group(1)) > 0:
                status, extra, output = scratch.test(name + "-again")
                seconds += extra
                if status == 0:
                    return Outcome(mutant, "survived", f"{failure} failed once, then passed: flaky", seconds)
                if status is None:
                    return Outcome(mutant, "timeout", f"after {scratch.timeout:.0f} s", seconds)
                failure = first_failure(output) or f"swift test exit status {status}"
        return Outcome(mutant, "killed", failure, seconds)
    finally:
        file.write_text(original, encoding="utf-8")


def cell(text: str) -> str:
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`" if text else "(nothing)"


def report(outcomes: list[Outcome], header: list[str]) -> str:
    counted = [o for o in outcomes if o.result in ("killed", "survived", "timeout")]
    killed = [o for o in counted if o.result != "survived"]
    lines = header + ["", "| # | file:line | change (original → mutated) | result |", "|---|---|---|---|"]
    number = 0
    for o in outcomes:
        if o.result == "uncompiled":
            continue
        number += 1
        result = {
            "killed": f"killed by {cell(o.detail)}",
            "timeout": f"timeout (killed) {o.detail}".rstrip(),
            "survived": "**survived**" + (f" ({o.detail})" if o.detail else ""),
            "equivalent": f"equivalent: {o.detail.replace('|', '/')}",
        }[o.result]
        lines.append(f"| {number} | {o.mutant.location} | {cell(o.mutant.old_text)} → {cell(o.mutant.new_text)} | {result} |")
    uncompiled = [o for o in outcomes if o.result == "uncompiled"]
    equivalent = [o for o in outcomes if o.result == "equivalent"]
    same_code = [o for o in equivalent if o.same_code]
    survivors = [o for o in counted if o.result == "survived"]
    lines += ["", f"Tested {len(counted)} mutant{'' if len(counted) == 1 else 's'}: {len(killed)} killed "
              f"({sum(o.result == 'timeout' for o in counted)} by a timeout), {len(survivors)} survived; "
              f"{len(equivalent) - len(same_code)} listed as equivalent, {len(same_code)} found to compile to the "
              f"same code as the original (neither counted); {len(uncompiled)} more were drawn but did not compile "
              f"(skipped, not counted)."]
    percent = 100 * len(killed) / len(counted) if counted else 0
    lines += ["", f"score: {len(killed)}/{len(counted)} killed ({percent:.1f}%)"]
    return "\n".join(lines) + "\n"


def tool_version() -> str:
    mutate = shutil.which("mutate") or "mutate"
    try:
        from importlib import metadata
        return metadata.version("universalmutator")
    except Exception:
        try:
            return f"{mutate} {os.path.getmtime(mutate):.0f}"
        except OSError:
            return mutate


def git(repo: Path, *args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(prog="bash .ci/mutants.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", nargs="?", type=int, default=60,
                        help="how many mutants that compile to test (default 60)")
    parser.add_argument("seed", nargs="?", type=int, default=1, help="the seed of the draw (default 1)")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the package (the wrapper passes its own)")
    parser.add_argument("--report", type=Path, default=os.environ.get("MUTANTS_REPORT", ".ci/mutants/reports/package.md"),
                        help="where to write the report (env MUTANTS_REPORT; default .ci/mutants/reports/package.md)")
    parser.add_argument("--equivalent", type=Path,
                        default=os.environ.get("MUTANTS_EQUIVALENT", ".ci/mutants/equivalent.txt"),
                        help="the equivalent mutants (env MUTANTS_EQUIVALENT; default .ci/mutants/equivalent.txt)")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("MUTANTS_TIMEOUT", 0)) or None,
                        help="seconds for one `swift test`; a timeout counts as killed (env MUTANTS_TIMEOUT; "
                        "default 8 times the unmutated run, at least 120 and at most 300)")
    parser.add_argument("--build-timeout", type=float, default=1800, help="seconds for one build (1800)")
    parser.add_argument("--scratch", type=Path, default=os.environ.get("MUTANTS_SCRATCH"),
                        help="the scratch folder (env MUTANTS_SCRATCH; default under $TMPDIR or /tmp)")
    parser.add_argument("--files", action="append", default=[], metavar="GLOB",
                        help="mutate these files (globs relative to the repository) instead of every source file; "
                        "repeatable; files or branches not compiled here are still left out")
    parser.add_argument("--tests", metavar="REGEX",
                        help="run only the tests this `swift test --filter` matches, for every mutant and the "
                             "baseline: faster, and never kinder (a mutant only other tests kill survives)")
    parser.add_argument("--list", action="store_true",
                        help="only print the first COUNT mutants of the draw; build and test nothing")
    parser.add_argument("--no-same-code", dest="same_code", action="store_false",
                        help="do not first build each mutant without debug information to leave out, as "
                             "equivalent, one that compiles to the same code as the original")
    parser.add_argument("--no-confirm", dest="confirm", action="store_false",
                        help="do not re-run the failing test of a killed mutant to rule out a flaky failure")
    args = parser.parse_args()
    if args.count < 1:
        fail("N must be at least 1")

    repo = args.repo.resolve()
    report_path = args.report if args.report.is_absolute() else repo / args.report
    equivalent_path = args.equivalent if args.equivalent.is_absolute() else repo / args.equivalent
    scratch_root = args.scratch or Path(os.environ.get("TMPDIR", "/tmp")) / (
        "networkindicator-mutants-" + hashlib.sha256(str(repo).encode()).hexdigest()[:8])
    scratch_root = scratch_root.resolve()
    if scratch_root == repo or repo in scratch_root.parents and not scratch_root.name.startswith(".build"):
        fail(f"the scratch folder {scratch_root} must be outside the work tree, or a .build-* folder in it")
    scratch = Scratch(scratch_root, args.timeout or 600, args.build_timeout, args.tests, args.same_code)
    lock = open(scratch_root / "lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fail(f"another mutation run is using {scratch_root}")
    shutil.rmtree(scratch.logs)
    scratch.logs.mkdir()

    equivalents = read_equivalents(equivalent_path)
    ignore_file = Path(__file__).with_name("ignored-lines.txt")
    extra_ignored = [] if not ignore_file.exists() else [
        re.compile(line) for line in ignore_file.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")]
    ignored = [re.compile(p) for p in DEFAULT_IGNORED_LINES] + extra_ignored

    # What the report names is the tree as copied now: later edits to the work tree do not count.
    commit = git(repo, "rev-parse", "--short", "HEAD") or "unknown commit"
    if git(repo, "status", "--porcelain", "--", "Sources"):
        commit += " with uncommitted changes in Sources"
    log(f"mutants: syncing {repo} into {scratch.repo}")
    changed = sync(repo, scratch.repo)
    log(f"  {changed} files written or removed")

    matched = matching_files(scratch.repo, args.files)
    if not matched:
        fail("no files to mutate")
    compiled, left_out = compiled_files(scratch.repo, matched, Conditions(scratch_root / "cache"))
    for rel in left_out:
        log(f"  {rel}: left out, none of its code is compiled here")
    files = sorted(compiled)
    if not files:
        fail("none of the files has code that is compiled here")
    tool = tool_version()
    log(f"mutants: generating the mutants of {len(files)} files with universalmutator {tool}")
    by_file = {}
    for rel in files:
        by_file[rel] = mutants_of(scratch.repo, rel, scratch_root / "cache", tool, ignored, compiled[rel])
        log(f"  {rel}: {len(by_file[rel])} mutants")
    order = draw_order(by_file, args.seed)
    log(f"  {len(order)} mutants in all")
    if not order:
        fail("the files have no mutants")

    if args.list:
        for mutant in order[:args.count]:
            reason = equivalent_reason(mutant, equivalents)
            print(f"{mutant.location}: {mutant.old_text} → {mutant.new_text}"
                  + (f"   [equivalent: {reason}]" if reason else ""))
        return

    log("mutants: baseline: building the unmutated copy")
    status, seconds = scratch.build_tests("baseline")
    if status != 0:
        tail = (scratch.logs / "baseline-build.log").read_text(encoding="utf-8", errors="replace")
        errors = list(dict.fromkeys(l for l in tail.splitlines() if re.search(r":\d+:\d+: error: ", l)))[:10]
        errors = errors or tail.splitlines()[-15:]
        fail("the unmutated package does not build, so no mutant can be judged (is the work tree "
             "mid-edit? try again later).\n" + "\n".join(errors) + f"\nfull log: {scratch.logs}/baseline-build.log", 3)
    log(f"  built in {seconds:.0f} s; running swift test")
    status, seconds, output = scratch.test("baseline")
    if status != 0:
        why = "timed out" if status is None else f"failed: {first_failure(output) or 'exit status %s' % status}"
        fail(f"the unmutated package's tests {why}; fix that first.\nfull log: {scratch.logs}/baseline-test.log", 3)
    ran = TEST_COUNT.search(output)
    scratch.timeout = args.timeout or min(300.0, max(120.0, 8 * seconds))
    log(f"  {ran.group(1) if ran else 'all'} tests passed in {seconds:.0f} s; a mutant's run times out after "
        f"{scratch.timeout:.0f} s")

    command = f"bash .ci/mutants.sh {args.count} {args.seed}" + "".join(f" --files '{g}'" for g in args.files)
    if args.tests:
        command += f" --tests '{args.tests}'"
    header = [
        "# Mutation run",
        "",
        f"`{command}` on {commit}, {datetime.date.today().isoformat()}: universalmutator {tool}, "
        f"{len(order)} mutants of {len(files)} files ({'every' if not args.files else 'each matched'} source file "
        f"with code compiled on this platform; code in `#if` branches not compiled here is not mutated"
        f"{'' if not left_out else ', and ' + ', '.join('`' + f + '`' for f in left_out) + ' are left out'}), "
        f"drawn round-robin "
        f"over the files in an order seeded by {args.seed}. Each mutant that compiles runs "
        + (f"the tests matching `{args.tests}`" if args.tests else "the whole `swift test`")
        + f" (a failure or a {scratch.timeout:.0f} s timeout kills it); one that does not compile "
        f"is skipped and not counted. Equivalent mutants come from `{args.equivalent}`"
        + (", or compile to the same code as the original (object files and module identical, built "
           "without debug information, the original given the same number of lines)" if args.same_code else "")
        + (f"; original lines matching the {len(extra_ignored)} patterns of `.ci/mutants/ignored-lines.txt` "
           f"are never mutated." if extra_ignored else "."),
    ]

    outcomes: list[Outcome] = []
    tested = 0
    started = time.monotonic()
    for index, mutant in enumerate(order):
        if tested >= args.count:
            break
        reason = equivalent_reason(mutant, equivalents)
        if reason:
            outcomes.append(Outcome(mutant, "equivalent", reason))
            log(f"[{tested}/{args.count}] {mutant.location}: equivalent ({reason})")
            continue
        prefix = f"[{tested + 1}/{args.count}] {mutant.location}: {mutant.old_text} → {mutant.new_text}"
        log(prefix[:200])
        outcome = evaluate(scratch, mutant, index, args.confirm)
        outcomes.append(outcome)
        if outcome.result in ("killed", "survived", "timeout"):
            tested += 1
        killed = sum(o.result in ("killed", "timeout") for o in outcomes)
        text = {"uncompiled": "does not compile, skipped", "survived": "SURVIVED",
                "equivalent": "equivalent: compiles to the same code, not counted",
                "timeout": "timeout (killed)", "killed": "killed by " + outcome.detail}[outcome.result]
        if outcome.result == "survived" and outcome.detail:
            text += f" ({outcome.detail})"
        log(f"    {text} ({outcome.seconds:.0f} s; {killed}/{tested} killed; "
            f"{(time.monotonic() - started) / 60:.1f} min so far)")
    if tested < args.count:
        log(f"mutants: only {tested} mutants could be tested out of the {len(order)} drawn")

    text = report(outcomes, header)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(text, encoding="utf-8")
    print(text, end="")
    survivors = [o for o in outcomes if o.result == "survived"]
    if survivors:
        log(f"\nmutants: {len(survivors)} survived. Kill each with a test, or, if no test can tell it from "
            f"the original, add it to {args.equivalent} with the reason:")
        for o in survivors:
            log(f"{o.mutant.path}:{o.mutant.line}: {o.mutant.new_text} ## <why no test can kill it>")
    log(f"mutants: report written to {report_path}")


def interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # Also when started in the background (SIGINT ignored) or stopped with SIGTERM or SIGHUP:
    # the running build or test is killed and the mutated file restored.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, interrupted)
    try:
        main()
    except KeyboardInterrupt:
        log("mutants: interrupted; the mutated file in the scratch copy was restored, no report written")
        sys.exit(130)
