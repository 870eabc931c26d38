"""The cyclic garbage collector is paused while a check builds its objects
(proofcheck.kernel.limits.collector_paused) and left as it was found."""
import gc

import pytest

from proofcheck.kernel.limits import collector_paused


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collectors_state_is_restored_even_on_an_exception(collector, enabled):
    (gc.enable if enabled else gc.disable)()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block restores the outer's state
    assert gc.isenabled() is enabled
    with pytest.raises(ZeroDivisionError):
        with collector_paused():
            1 / 0
    assert gc.isenabled() is enabled


def test_verify_certificate_runs_paused_and_restores(collector, monkeypatch):
    """The kernel's check (reading included) runs without automatic collections; its verdict
    is the one it gives with the collector on."""
    from conftest import certificate_16

    import proofcheck.kernel.theorem as theorem
    from proofcheck.kernel.verdicts import Verdict
    from proofcheck.kernel.verify import verify_certificate
    cert, seen = certificate_16("union-3d"), []
    real = theorem.check

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)
    monkeypatch.setattr(theorem, "check", spy)
    gc.enable()
    assert verify_certificate(cert).verdict is Verdict.VERIFIED
    assert seen == [False] and gc.isenabled()


def test_a_command_runs_paused_and_restores(collector, monkeypatch, tmp_path):
    """``main``: the command runs without automatic collections; the caller's collector is
    left as it was (a test suite, an embedding program)."""
    import proofcheck.frontend.runs.theorem as runs
    from proofcheck.frontend.cli import main
    seen, real = [], runs.run_theorem

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)
    monkeypatch.setattr(runs, "run_theorem", spy)
    gc.enable()
    assert main(["theorem", "1.6", "--no-report"]) == 0
    assert seen == [False] and gc.isenabled()
