"""The nbval comparison tolerates a CPU's last digits in decimals, and nothing else (regression_tolerance)."""

from regression_tolerance import tolerant_equal

REF = ("**❔ inconclusive** — ours: (0.046, 0.002, 0.089) selectivity over 12 layers; checks: nsp_learned "
       "(0.003, -0.027, 0.034) (failed: above chance (0.5) (interval low > 0)). `survey3.4.mlp_less_selective`")


def test_decimals_within_machine_noise_pass():
    assert tolerant_equal(REF, REF.replace("(0.046, 0.002, 0.089)", "(0.045, 0.001, 0.088)"))
    assert tolerant_equal(REF, REF.replace("(0.003, -0.027, 0.034)", "(-0.016, -0.048, 0.017)"))  # measured
    assert tolerant_equal("init / order: 3/3 [RATE,  RATE]\n", "init / order: 3/3 [RATE, RATE]\n")
    assert tolerant_equal("ratio 39.5 x", "ratio 40.1 x")  # 5% of a larger value


def test_verdicts_outcomes_counts_and_real_moves_fail():
    assert not tolerant_equal(REF, REF.replace("❔ inconclusive", "✅ reproduced"))
    assert not tolerant_equal(REF, REF.replace("(failed: above", "(ok: above"))
    assert not tolerant_equal(REF, REF.replace("12 layers", "11 layers"))  # a whole number is exact
    assert not tolerant_equal(REF, REF.replace("0.089", "0.189"))  # beyond noise
    assert not tolerant_equal(REF, REF.replace("(0.046, 0.002, 0.089)", "(0.046, 0.002)"))
    assert not tolerant_equal("ratio 39.5 x", "ratio 44.0 x")
    assert not tolerant_equal(REF, None)
