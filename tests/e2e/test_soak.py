"""A 2,000-step version of the soak (bench/soak.py; issue 11 item 9): training with capture across
recompiles, capture.reset() and checkpoint saves keeps RSS, open files, threads, compiled
entries and execution engines flat."""
from bench.soak import run, sample


def test_soak_2000_steps_is_flat():
    # graphs and cache entries that other tests in this process still hold
    before = sample(0)
    report = run(steps=2000, every=250, recompile_every=300, reset_every=700, save_every=400)
    samples = report["samples"]
    assert len(samples) == 8
    growth = report["growth"]
    assert growth["open_files"] <= 0 and growth["threads"] <= 0, samples
    assert growth["rss_mib"] < 15, samples
    assert max(s["engines"] for s in samples) - before["engines"] <= 3, (before, samples)
    assert max(s["entries"] for s in samples) - before["entries"] <= 3, (before, samples)
    assert report["final_loss"] < samples[0]["loss"] * 2  # it trained (and did not diverge)
