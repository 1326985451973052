"""The GitHub Actions workflows: valid (actionlint) and safe (three rules checked on every file).

Rules: (1) a job on the self-hosted GPU runner never runs code from a pull request: its
workflow has no pull_request, pull_request_target or workflow_run trigger; (2) least
privilege: `contents: read` for the workflow, `pages: write` and `id-token: write` only in
the job that deploys to Pages; (3) every third-party action is pinned to a full commit SHA.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"
UNTRUSTED_TRIGGERS = {"pull_request", "pull_request_target", "workflow_run"}
DEPLOY_ONLY = {"pages": "write", "id-token": "write"}


def triggers(workflow: dict) -> set[str]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as True
    if isinstance(on, str):
        return {on}
    return set(on or ())


def runs_on(job: dict) -> list[str]:
    labels = job.get("runs-on", [])
    return [labels] if isinstance(labels, str) else list(labels)


def problems(workflow: dict) -> list[str]:
    found = []
    if workflow.get("permissions") != {"contents": "read"}:
        found.append(f"workflow permissions must be exactly contents: read, not {workflow.get('permissions')!r}")
    for name, job in workflow.get("jobs", {}).items():
        if "self-hosted" in runs_on(job) and triggers(workflow) & UNTRUSTED_TRIGGERS:
            found.append(f"job {name} runs on a self-hosted runner in a workflow triggered by "
                         f"{sorted(triggers(workflow) & UNTRUSTED_TRIGGERS)}")
        steps = job.get("steps", [])
        deploys = any(str(s.get("uses", "")).startswith("actions/deploy-pages@") for s in steps)
        permissions = job.get("permissions", {})
        if not isinstance(permissions, dict):
            found.append(f"job {name}: permissions must be a mapping, not {permissions!r}")
            permissions = {}
        for scope, level in permissions.items():
            allowed = DEPLOY_ONLY.get(scope) == level and deploys
            if level != "read" and level != "none" and not allowed:
                found.append(f"job {name}: {scope}: {level} is only for the job that deploys to Pages")
        for step in steps:
            uses = step.get("uses")
            if uses and not uses.startswith(("./", "docker://")) and not re.fullmatch(r"[^@]+@[0-9a-f]{40}", uses):
                found.append(f"job {name}: {uses} is not pinned to a full commit SHA")
    return found


def test_there_are_workflows():
    assert {p.name for p in WORKFLOWS} >= {"pull-request.yml", "publish.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_follows_the_security_rules(path):
    assert problems(yaml.safe_load(path.read_text())) == []


def test_the_gpu_runner_is_used_and_pull_requests_test_on_cpu():
    loaded = {p.name: yaml.safe_load(p.read_text()) for p in WORKFLOWS}
    gpu_jobs = [j for w in loaded.values() for j in w["jobs"].values() if "gpu" in runs_on(j)]
    assert gpu_jobs, "no job runs on the self-hosted GPU runner"
    pr = loaded["pull-request.yml"]
    assert triggers(pr) == {"pull_request"}
    assert any(s.get("run") == "scripts/dev test" for j in pr["jobs"].values() for s in j["steps"])


BAD = """
on: [pull_request]
permissions: write-all
jobs:
  build:
    runs-on: [self-hosted, gpu]
    permissions: {pages: write}
    steps:
      - uses: actions/checkout@v4
"""


def test_the_rules_catch_each_violation():
    found = "\n".join(problems(yaml.safe_load(BAD)))
    assert "exactly contents: read" in found
    assert "self-hosted runner in a workflow triggered by ['pull_request']" in found
    assert "pages: write is only for the job that deploys" in found
    assert "actions/checkout@v4 is not pinned" in found


def test_actionlint_accepts_the_workflows():
    config = ROOT / ".github" / "actionlint.yaml"  # the GPU runner's custom label
    command = [str(ACTIONLINT), "-color=false", "-config-file", str(config), *map(str, WORKFLOWS)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ github.evnt.x }}\n")
    proc = subprocess.run([str(ACTIONLINT), "-color=false", str(bad)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode != 0 and "evnt" in proc.stdout


def test_a_weekly_workflow_reports_the_newest_nightly_and_pull_requests_stay_on_the_pins():
    loaded = {p.name: yaml.safe_load(p.read_text()) for p in WORKFLOWS}
    nightly = loaded["nightly-thunder.yml"]
    assert triggers(nightly) == {"schedule", "workflow_dispatch"}
    steps = [s for j in nightly["jobs"].values() for s in j["steps"]]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "scripts/dev drift --thunder nightly" in runs and "scripts/dev build --thunder nightly" in runs
    uploaded = {s["with"]["name"]: s["with"]["path"] for s in steps
                if str(s.get("uses", "")).startswith("actions/upload-artifact@")}
    assert uploaded == {"drift-report": "drift-report/nightly", "nightly-site": "site-thunder/nightly"}
    for name, workflow in loaded.items():
        if name != "nightly-thunder.yml":
            assert "--thunder" not in yaml.safe_dump(workflow), f"{name} leaves the pins"
