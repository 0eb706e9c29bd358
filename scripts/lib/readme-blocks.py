#!/usr/bin/env python3
"""Runs every fenced code block of the READMEs, so a stale example fails.

Used by scripts/test-dist (the packages from dist/ installed, no Rust on
PATH). Each block runs in a network namespace of its own (`unshare -n`,
loopback only), so the examples' `127.0.0.1:8080` is free and nothing
reaches the internet; unless the block starts `acd-sandbox` itself, the
shipped `acd-sandbox` serves its built-in demo data there first. The
environment has ACD_BASE_URL=http://127.0.0.1:8080 and
ACD_API_KEY=acd_live_demo_ada (what the READMEs' `export` lines set),
`dist/bin` and the venv first on PATH, pip and npm offline; `<version>` is
the workspace's version. The working directory holds `dist/` and, beside
it, the packages' files (the tarball, the wheel) and the npm project with
`acd-client` installed.

By fence language:
  sh       bash -euo pipefail; a line that starts `acd-sandbox ... &` is
           followed by a wait for its port (as a person reads the banner)
  python   the venv's python (the wheel installed); `def test_*` functions
           are then called, as pytest would
  js       node, as an ES module in the npm project
  kotlin   compiled together in one Maven project (offline, against
           dev.acd:acd-client from dist/maven and the `xml` block's
           dependency): a block with `fun main` runs it (args: the base
           URL), a block with `@Test fun NAME()` calls each, any other
           block is the body of a `main` (imports hoisted)
  java     compiled by javac on the Kotlin blocks' class path, the block
           the body of a `main` (imports hoisted), then run
  json     a sandbox configuration: acd-sandbox starts with it
  xml      a Maven `<dependency>`: the Kotlin blocks build with it
  rust     README.md's run as doctests (tests/src/lib.rs includes it);
           checked to be included, not run here
  text     after `<!-- output of the block above -->`: that block's exact
           standard output

A block that cannot run (a registry, the source tree, a diagram) is
preceded by `<!-- not run: REASON -->`; the reason is printed. Any other
block in an unknown language fails the run.

Usage: readme-blocks.py --dist DIR --python PY --npm-project DIR
           --kotlin-settings FILE --version V README...
Prints one line per block; exits 1 when any failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

BASE = "http://127.0.0.1:8080"
KEY = "acd_live_demo_ada"
TIMEOUT_S = 240
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.+?)\s*-->\s*$")
OUTPUT_OF = re.compile(r"^\s*<!--\s*output of the block above\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
ROOT = Path(__file__).resolve().parents[2]

# Runs COMMAND in this (fresh) network namespace: loopback up, the demo
# sandbox on 8080 when asked, every process of the namespace stopped after.
WRAPPER = r"""
set -u
"$(command -v ip || echo /usr/sbin/ip)" link set lo up
wait_port() {
  local i
  for i in $(seq 300); do
    (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:8080" >&2; return 1
}
stop_all() {
  local status=$? me pid
  set +e
  me="$(readlink /proc/$$/ns/net)"
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    [ "$pid" = $$ ] && continue
    [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$me" ] && kill "$pid" 2>/dev/null
  done
  exit "$status"
}
trap stop_all EXIT
if [ "$START_SANDBOX" = 1 ]; then
  acd-sandbox --log off >"$WORK/demo-sandbox.out" 2>&1 &
  wait_port || exit 1
fi
"$@"
"""


@dataclass
class Block:
    file: str
    line: int
    lang: str
    body: str
    not_run: str | None
    output_of_previous: bool

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of PATH, each with the HTML comment on the line before."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, lang = fence.group(1), fence.group(2)
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        before = lines[start - 1] if start > 0 else ""
        not_run = NOT_RUN.match(before)
        found.append(Block(str(path.relative_to(ROOT)), start + 1, lang, "\n".join(body) + "\n",
                           not_run.group(1) if not_run else None, bool(OUTPUT_OF.match(before))))
    return found


class Runner:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.dist = Path(args.dist).resolve()
        self.work = Path(tempfile.mkdtemp(prefix="acd-readme-"))
        self.failures: list[str] = []
        self.outputs: dict[str, str] = {}
        self.maven_dependency: str | None = None
        self.kotlin: list[Block] = []
        self.java: list[Block] = []
        # The working directory: dist/, the packages beside it, the npm project.
        self.cwd = self.work / "release"
        self.cwd.mkdir()
        (self.cwd / "dist").symlink_to(self.dist)
        for package in [*self.dist.glob("npm/*.tgz"), *self.dist.glob("python/*")]:
            (self.cwd / package.name).symlink_to(package)
        self.npm = Path(args.npm_project).resolve()
        python_bin = str(Path(args.python).parent)
        self.env = {
            **os.environ,
            "PATH": os.pathsep.join([str(self.dist / "bin"), python_bin, os.environ.get("PATH", "")]),
            "ACD_BASE_URL": BASE, "ACD_API_KEY": KEY,
            "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "npm_config_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false",
            "WORK": str(self.work),
        }

    def in_namespace(self, command: list[str], cwd: Path, sandbox: bool) -> subprocess.CompletedProcess:
        prefix = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
        env = {**self.env, "START_SANDBOX": "1" if sandbox else "0"}
        try:
            return subprocess.run([*prefix, "bash", "-c", WRAPPER, "wrapper", *command], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired as expired:
            return subprocess.CompletedProcess(command, 124, expired.stdout or "",
                                               f"{expired.stderr or ''}\ntimed out after {TIMEOUT_S} s")

    def result(self, block: Block, done: subprocess.CompletedProcess, what: str) -> None:
        self.outputs[block.where] = done.stdout
        if done.returncode == 0:
            print(f"ok    {block.where} {block.lang}: {what}")
            return
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        print(f"FAIL  {block.where} {block.lang}: {what} (exit {done.returncode})\n{tail}")
        self.failures.append(block.where)

    def fail(self, block: Block, why: str) -> None:
        print(f"FAIL  {block.where} {block.lang}: {why}")
        self.failures.append(block.where)

    def source(self, block: Block) -> str:
        return block.body.replace("<version>", self.args.version)

    def run_sh(self, block: Block) -> None:
        lines = []
        for line in self.source(block).splitlines():
            lines.append(line)
            if re.match(r"^\s*acd-sandbox\b[^#]*&\s*(#.*)?$", line):
                lines.append("wait_port")
        script = self.work / f"block-{block.line}.sh"
        script.write_text("set -euo pipefail\n" + "\n".join(lines) + "\n")
        starts_own = any(re.match(r"^\s*acd-sandbox\b", line) for line in lines)
        # `wait_port` is the wrapper's: the script is sourced by it.
        done = self.in_namespace(["source", str(script)], self.cwd, sandbox=not starts_own)
        self.result(block, done, "bash")

    def run_python(self, block: Block) -> None:
        program = self.source(block)
        tests = re.findall(r"^def (test_\w+)\(\)", program, re.M)
        for name in tests:
            program += f"\n{name}()\nprint('passed: {name}')\n"
        script = self.work / f"block-{block.line}.py"
        script.write_text(program)
        starts_own = '"acd-sandbox"' in program
        done = self.in_namespace([str(Path(self.args.python).absolute()), str(script)], self.cwd,
                                 sandbox=not starts_own)
        self.result(block, done, "python" + (f" ({', '.join(tests)})" if tests else ""))

    def run_js(self, block: Block) -> None:
        script = self.npm / f"readme-block-{Path(block.file).parent.name or 'top'}-{block.line}.mjs"
        script.write_text(self.source(block))
        try:
            done = self.in_namespace(["node", str(script)], self.npm, sandbox=True)
        finally:
            script.unlink()
        self.result(block, done, "node")

    def run_json(self, block: Block) -> None:
        config = self.work / f"block-{block.line}.json"
        config.write_text(self.source(block))
        script = self.work / f"block-{block.line}.sh"
        script.write_text(f'acd-sandbox --log off --config "{config}" >"$WORK/config-sandbox.out" 2>&1 &\n'
                          'wait_port\nhead -1 "$WORK/config-sandbox.out"\n')
        done = self.in_namespace(["source", str(script)], self.cwd, sandbox=False)
        self.result(block, done, "acd-sandbox --config (the block) starts and listens")

    def check_output(self, block: Block, previous: Block | None) -> None:
        if previous is None or previous.where not in self.outputs:
            self.fail(block, "an output block with no block run before it")
            return
        got = self.outputs[previous.where]
        if got.strip() == block.body.strip():
            print(f"ok    {block.where} text: the output of {previous.where}")
        else:
            self.fail(block, f"the output of {previous.where} differs:\n--- README\n{block.body}--- printed\n{got}")

    def check_rust(self, block: Block) -> None:
        lib = (ROOT / "tests/src/lib.rs").read_text(encoding="utf-8")
        if block.file == "README.md" and 'include_str!("../../README.md")' in lib:
            print(f"ok    {block.where} rust: a doctest of tests/src/lib.rs (cargo test --doc, scripts/test rust)")
        else:
            self.fail(block, "a Rust block no doctest includes")

    # --- Kotlin: one Maven project for every block.

    def kotlin_file(self, index: int, block: Block) -> tuple[str, list[str] | None]:
        """The block as a source file in package readme.bINDEX, and how to run it."""
        source = self.source(block)
        imports = [line for line in source.splitlines() if line.startswith("import ")]
        rest = "\n".join(line for line in source.splitlines() if not line.startswith("import "))
        package = f"package readme.b{index}\n\n"
        tests = re.findall(r"@Test fun (`[^`]+`|\w+)\(\)", source)
        if "fun main(" in source:
            text = package + source
            args = [BASE] if re.search(r"fun main\(\s*args", source) else []
        elif tests:
            calls = "\n".join(f"    {name}()\n    println(\"passed: {name.strip('`')}\")" for name in tests)
            text = package + source + f"\n\nfun main() {{\n{calls}\n}}\n"
            args = []
        else:
            body = "\n".join("    " + line for line in rest.splitlines())
            text = (package + "import dev.acd.*\n" + "\n".join(imports) +
                    f"\n\nfun main(): Unit = kotlinx.coroutines.runBlocking {{\n{body}\n}}\n")
            args = []
        return text, args

    def run_kotlin(self) -> None:
        if not self.kotlin and not self.java:
            return
        if self.maven_dependency is None:
            for block in [*self.kotlin, *self.java]:
                self.fail(block, "no xml block gives the Maven dependency")
            return
        project = self.work / "kotlin"
        sources = project / "src/main/kotlin"
        sources.mkdir(parents=True)
        runs = []
        for index, block in enumerate(self.kotlin):
            text, args = self.kotlin_file(index, block)
            (sources / f"readme_b{index}").mkdir()
            (sources / f"readme_b{index}" / "Block.kt").write_text(text)
            runs.append((block, f"readme.b{index}.BlockKt", args))
        pom = (ROOT / "scripts/lib/readme-blocks.pom.xml").read_text(encoding="utf-8")
        pom = pom.replace("<!-- @DEPENDENCY@ -->", self.maven_dependency)
        pom = pom.replace("@REPOSITORY@", (self.dist / "maven").as_uri())
        (project / "pom.xml").write_text(pom)
        build = subprocess.run(["mvn", "-B", "-ntp", "-q", "-Dstyle.color=never", "-o", "-Daether.offline.protocols=file",
                                "-s", self.args.kotlin_settings, "package", "dependency:build-classpath",
                                "-Dmdep.outputFile=cp.txt"], cwd=project, env=self.env,
                               capture_output=True, text=True, timeout=600)
        if build.returncode != 0:
            tail = "\n".join((build.stdout + build.stderr).strip().splitlines()[-30:])
            for block in [*self.kotlin, *self.java]:
                self.fail(block, f"the Kotlin blocks do not compile:\n{tail}")
            return
        classpath = f"{project / 'target/classes'}:{(project / 'cp.txt').read_text().strip()}"
        for block, main, args in runs:
            done = self.in_namespace(["java", "-cp", classpath, main, *args], self.cwd, sandbox=True)
            self.result(block, done, f"compiled, {main} run")
        self.run_java(project, classpath)

    def run_java(self, project: Path, classpath: str) -> None:
        for index, block in enumerate(self.java):
            lines = self.source(block).splitlines()
            imports = "\n".join(line for line in lines if line.startswith("import "))
            body = "\n".join("        " + line for line in lines if not line.startswith("import "))
            source = project / f"java/readme/j{index}/Block.java"
            source.parent.mkdir(parents=True)
            source.write_text(f"package readme.j{index};\n\n{imports}\n\npublic class Block {{\n"
                              f"    public static void main(String[] args) throws Exception {{\n{body}\n    }}\n}}\n")
            out = project / f"java-classes/j{index}"
            built = subprocess.run(["javac", "-cp", classpath, "-d", str(out), str(source)], env=self.env,
                                   capture_output=True, text=True, timeout=300)
            if built.returncode != 0:
                self.result(block, built, "javac")
                continue
            done = self.in_namespace(["java", "-cp", f"{out}:{classpath}", f"readme.j{index}.Block"], self.cwd,
                                     sandbox=True)
            self.result(block, done, f"javac, readme.j{index}.Block run")

    def run(self, readmes: list[str]) -> int:
        if subprocess.run(["unshare", "-n" if os.geteuid() == 0 else "-rn", "true"], capture_output=True).returncode != 0:
            print("readme-blocks: `unshare -n` is not permitted here: each block needs a network namespace of its own")
            return 1
        for readme in readmes:
            previous = None
            for block in blocks(ROOT / readme):
                if block.not_run is not None:
                    print(f"skip  {block.where} {block.lang or '(plain)'}: not run: {block.not_run}")
                elif block.output_of_previous:
                    self.check_output(block, previous)
                elif block.lang == "sh":
                    self.run_sh(block)
                elif block.lang == "python":
                    self.run_python(block)
                elif block.lang == "js":
                    self.run_js(block)
                elif block.lang == "json":
                    self.run_json(block)
                elif block.lang == "rust":
                    self.check_rust(block)
                elif block.lang == "kotlin":
                    self.kotlin.append(block)
                    print(f"...   {block.where} kotlin: compiled and run with the other Kotlin blocks")
                elif block.lang == "java":
                    self.java.append(block)
                    print(f"...   {block.where} java: compiled and run after the Kotlin blocks")
                elif block.lang == "xml" and "<artifactId>acd-client</artifactId>" in block.body:
                    dependency = re.search(r"<dependency>.*?</dependency>", block.body, re.S)
                    if dependency is None:
                        self.fail(block, "an xml block with no <dependency>")
                    else:
                        self.maven_dependency = dependency.group(0)
                        print(f"ok    {block.where} xml: the Kotlin blocks build with this dependency")
                else:
                    self.fail(block, "a block the test cannot run: give it a `<!-- not run: REASON -->` line")
                previous = block
        self.run_kotlin()
        shutil.rmtree(self.work, ignore_errors=True)
        if self.failures:
            print(f"readme-blocks: {len(self.failures)} failed: {', '.join(self.failures)}")
            return 1
        print("readme-blocks: every block ran (or says why not)")
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--npm-project", required=True)
    parser.add_argument("--kotlin-settings", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("readmes", nargs="+")
    return Runner(parser.parse_args()).run(parser.parse_args().readmes)


if __name__ == "__main__":
    sys.exit(main())
