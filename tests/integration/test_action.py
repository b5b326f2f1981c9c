"""The composite action (action.yml) run as a GitHub runner runs it: each `run:` step's script by
`bash --noprofile --norc -eo pipefail`, in the workspace, with the GITHUB_* and RUNNER_*
variables a runner sets and the step's `env:` and `if:` evaluated from the inputs; `uses:`
steps (other actions: setup-python, cache, upload-sarif) are not run here, but their `if:` and
`with:` are evaluated and checked against what the run steps left. Against the simulated web,
with linkfix installed by the action's own install step into a fresh virtualenv (slow: it
builds linkfix and installs its dependencies, as pre-commit's tests do).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import venv
from pathlib import Path
from typing import Any

import pytest
import yaml

from linkfix_simweb import SimWeb

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
SITE = "127.0.0.32"

pytestmark = pytest.mark.slow


# -- the runner ---------------------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[(),!])|(?P<name>[A-Za-z_][A-Za-z0-9_.-]*))")


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """A GitHub expression of the forms action.yml uses: context lookups (`inputs.x`,
    `steps.id.outputs.x`, `env.X`), '' strings, == != && || !, always(), hashFiles(path)."""
    python, position = [], 0
    while position < len(expression.strip()):
        match = _TOKEN.match(expression, position)
        assert match, f"cannot read {expression[position:]!r}"
        position = match.end()
        if match["string"]:
            python.append(repr(match["string"][1:-1].replace("''", "'")))
        elif match["op"]:
            python.append({"&&": " and ", "||": " or ", "!": " not "}.get(match["op"], match["op"]))
        elif match["name"] in ("always", "success", "hashFiles"):
            python.append(f"functions[{match['name']!r}]")
        else:
            value: Any = context
            for part in match["name"].split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
            python.append(repr(value))
    return eval("".join(python), {"__builtins__": {}}, {"functions": context["functions"]})  # our own tokens only


def substitute(text: str, context: dict[str, Any]) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), context)), text)


class Runner:
    """One job running the action: inputs, a workspace, the runner's files and variables."""

    def __init__(self, workspace: Path, inputs: dict[str, str], *, path: list[str], env: dict[str, str] | None = None) -> None:
        self.workspace = workspace
        self.temp = workspace.parent / f"{workspace.name}-runner"
        self.temp.mkdir()
        self.summary, self.output = self.temp / "step_summary", self.temp / "output"
        defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
        unknown = set(inputs) - set(defaults)
        assert not unknown, f"not inputs of the action: {unknown}"
        self.inputs = {**defaults, **inputs}
        self.env = {"PATH": os.pathsep.join([*path, os.environ["PATH"]]), "HOME": os.environ.get("HOME", str(self.temp)),
                    "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace), "GITHUB_ACTION_PATH": str(ROOT),
                    "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(self.output), "GITHUB_ENV": str(self.temp / "env"),
                    "GITHUB_PATH": str(self.temp / "path"), "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
                    "GITHUB_REPOSITORY": "example/docs", "GITHUB_EVENT_NAME": "pull_request", "RUNNER_OS": "Linux",
                    "RUNNER_TEMP": str(self.temp), "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(env or {})}
        self.steps: dict[str, dict[str, str]] = {}
        self.ran: list[tuple[str, int, str]] = []  # (step name, exit code, stdout)
        self.used: dict[str, dict[str, str]] = {}  # `uses:` step name -> its `with:`, for the steps whose `if:` held
        self.failed = 0

    def context(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "steps": self.steps, "env": self.env, "runner": {"os": "Linux", "temp": str(self.temp)},
                "github": {"run_id": "4242", "run_attempt": "1", "action_path": str(ROOT), "workspace": str(self.workspace)},
                "functions": {"always": lambda: True, "success": lambda: not self.failed, "hashFiles": lambda path: "hash" if (self.workspace / path).is_file() else ""}}

    async def run(self) -> int:
        """The job's exit code: the first failing step's (later steps then run only with always())."""
        for step in ACTION["runs"]["steps"]:
            condition = step.get("if", "success()")
            if "always()" not in condition and "success()" not in condition:
                condition = f"success() && ({condition})"  # what GitHub adds to a condition without a status function
            if not evaluate(condition, self.context()):
                continue
            if "uses" in step:
                self.used[step["name"]] = {key: substitute(str(value), self.context()) for key, value in step.get("with", {}).items()}
                continue
            env = {**self.env, **{key: substitute(str(value), self.context()) for key, value in step.get("env", {}).items()}}
            self.output.write_text("")
            code, out = await bash(step["run"], cwd=self.workspace, env=env)
            self.ran.append((step["name"], code, out))
            if "id" in step:
                self.steps[step["id"]] = {"outputs": dict(line.split("=", 1) for line in self.output.read_text().splitlines() if "=" in line)}
            self.failed = self.failed or code
        return self.failed

    def stdout(self, name: str) -> str:
        return next(out for step, _, out in self.ran if step == name)


async def bash(script: str, *, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script, cwd=cwd, env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(process.communicate(), 600)
    return process.returncode or 0, out.decode()


# -- fixtures -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def python_bin(tmp_path_factory) -> str:
    """A fresh virtualenv's bin/ for the install step to install linkfix into (the step runs
    the `python3` it finds first on PATH, as on a runner after setup-python)."""
    where = tmp_path_factory.mktemp("action-venv")
    venv.EnvBuilder(with_pip=True).create(where)
    return str(where / "bin")


@pytest.fixture
async def web():
    simweb = SimWeb()
    simweb.add_site(SITE)
    async with simweb:
        yield simweb


def docs_repo(root: Path, web: SimWeb, *, broken: bool) -> Path:
    (root / "docs").mkdir(parents=True)
    gone = f"\n\nGone: [old]({web.url(SITE, '/status/404/old-page')}) and [missing](missing.md).\n" if broken else "\n"
    (root / "docs" / "index.md").write_text(f"# Home\n\nRead [the guide](guide.md) and [the API]({web.url(SITE, '/ok/api.html')}).{gone}")
    (root / "docs" / "guide.md").write_text("# Guide\n")
    return root


ARGS = "docs --allow-private --network-probe="  # loopback is the simulated web; no DNS probe here


# -- tests ------------------------------------------------------------------------------------------------
async def test_broken_links_fail_the_job_with_annotations_a_summary_and_sarif(tmp_path, web, python_bin):
    repo = docs_repo(tmp_path / "repo", web, broken=True)
    job = Runner(repo, {"args": ARGS, "python-version": ""}, path=[python_bin])
    assert await job.run() == 1
    assert [(name, code) for name, code, _ in job.ran] == [("Install linkfix", 0), ("Check links", 0), ("Fail on broken links", 1)]
    assert job.steps["check"]["outputs"] == {"exit-code": "1", "sarif": "linkfix.sarif"}
    annotations = job.stdout("Check links")
    assert re.search(r"^::error file=docs/index\.md,line=5,col=\d+.*::.*missing\.md", annotations, re.M)
    assert re.search(r"^::error file=docs/index\.md,line=5,.*::.*/status/404/old-page", annotations, re.M)
    summary = job.summary.read_text()
    assert "missing.md" in summary and "/status/404/old-page" in summary
    sarif = json.loads((repo / "linkfix.sarif").read_text())
    located = {(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], result["locations"][0]["physicalLocation"]["region"]["startLine"])
               for result in sarif["runs"][0]["results"]}
    assert located == {("docs/index.md", 5)} and len(sarif["runs"][0]["results"]) == 2
    # The other actions: the local cache restored and saved, the SARIF uploaded from where it is.
    assert set(job.used) == {"Restore the link cache", "Save the link cache", "Upload SARIF"}
    assert job.used["Upload SARIF"]["sarif_file"] == "linkfix.sarif" and job.used["Save the link cache"]["path"] == ".linkfix-cache"
    assert (repo / ".linkfix-cache").is_dir()


async def test_a_clean_tree_passes_the_job(tmp_path, web, python_bin):
    repo = docs_repo(tmp_path / "repo", web, broken=False)
    job = Runner(repo, {"args": ARGS, "python-version": ""}, path=[python_bin])
    assert await job.run() == 0
    assert [name for name, _, _ in job.ran] == ["Install linkfix", "Check links"]
    assert job.steps["check"]["outputs"]["exit-code"] == "0"
    assert "no broken links" in job.summary.read_text()


async def test_fail_false_reports_without_failing(tmp_path, web, python_bin):
    repo = docs_repo(tmp_path / "repo", web, broken=True)
    job = Runner(repo, {"args": ARGS, "python-version": "", "fail": "false", "upload-sarif": "false"}, path=[python_bin])
    assert await job.run() == 0
    assert job.steps["check"]["outputs"]["exit-code"] == "1" and "Upload SARIF" not in job.used


async def test_jobs_sharing_a_store_check_each_url_once(tmp_path, web, python_bin, redis_server):
    inputs = {"args": ARGS, "python-version": "", "cache-url": redis_server.url}
    first = Runner(docs_repo(tmp_path / "first", web, broken=True), inputs, path=[python_bin])
    assert await first.run() == 1
    assert not {"Restore the link cache", "Save the link cache"} & set(first.used)  # the store instead
    web.reset_stats()
    second = Runner(docs_repo(tmp_path / "second", web, broken=True), inputs, path=[python_bin])  # another repository's job
    assert await second.run() == 1
    assert web.stats(SITE).requests == 0  # both external URLs answered from the first job's results
    assert (tmp_path / "second" / "linkfix.sarif").read_text().count('"ruleId"') == 2


def test_no_input_is_spliced_into_a_script():
    """Inputs reach the scripts through `env:` only (a `${{ }}` in `run:` is script injection)."""
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
        if "run" in step:
            assert step["shell"] == "bash"


async def test_an_input_with_shell_in_it_is_only_an_argument(tmp_path, web, python_bin):
    repo = docs_repo(tmp_path / "repo", web, broken=False)
    job = Runner(repo, {"args": 'docs"; touch injected; echo "', "python-version": ""}, path=[python_bin])
    await job.run()
    assert not (repo / "injected").exists()


@pytest.mark.parametrize(("expression", "expected"), [
    ("inputs.cache-url == ''", True), ("always() && inputs.upload-sarif == 'true'", True), ("inputs.fail != 'true'", False),
    ("inputs.cache-password || env.LINKFIX_CACHE_PASSWORD", "from-env"),
])
def test_the_runner_reads_the_expressions_as_github_does(tmp_path, expression, expected):
    job = Runner(tmp_path / "w", {}, path=[], env={"LINKFIX_CACHE_PASSWORD": "from-env"})
    assert evaluate(expression, job.context()) == expected


def test_the_action_is_a_composite_of_known_actions():
    assert ACTION["runs"]["using"] == "composite"
    assert {step["uses"].split("@")[0] for step in ACTION["runs"]["steps"] if "uses" in step} == {
        "actions/setup-python", "actions/cache/restore", "actions/cache/save", "github/codeql-action/upload-sarif"}

