"""The CLI's what-if counter flags (issue 12): --smoke, --wreck, --vehicle, --rubble change the ruling as the
same counter on the map does, on the demo map, without editing a file."""

from __future__ import annotations

import re

import clirun


def _value(out: str, key: str) -> str:
    m = re.search(rf"^{key}: (.+)$", out, re.MULTILINE)
    assert m, (key, out)
    return m.group(1).strip()


def test_smoke_on_the_thread_is_a_hindrance() -> None:
    """SMOKE 3 (the chart's counter strength) in W4 on the W2-W6 thread: +3 (A24.2); none without it."""
    plain, smoked = clirun.run("los", "W2", "W6"), clirun.run("los", "W2", "W6", "--smoke", "W4")
    assert plain.returncode == smoked.returncode == 0, smoked.stderr
    assert _value(plain.stdout, "hindrance_drm") == "0"
    assert _value(smoked.stdout, "hindrance_drm") == "3" and "A24.2" in smoked.stdout


def test_smoke_in_the_target_hex_adds_to_the_attack_drm() -> None:
    plain = clirun.run("tem", "--target", "K14", "--firer", "I14")
    smoked = clirun.run("tem", "--target", "K14", "--firer", "I14", "--smoke", "K14")
    assert _value(plain.stdout, "total_drm") == "0" and _value(smoked.stdout, "total_drm") == "3"


def test_a_wreck_costs_a_vehicle_its_road_rate_and_a_mp() -> None:
    """D2.14: a vehicle entering a hex with a wreck pays +1 MP, and the wreck spoils the road rate here."""
    plain = clirun.run("move", "S7", "T6", "--unit", "vehicle")
    wrecked = clirun.run("move", "S7", "T6", "--unit", "vehicle", "--wreck", "T6")
    assert _value(plain.stdout, "cost") == "1½" and _value(wrecked.stdout, "cost") == "3"
    assert "D2.14" in wrecked.stdout


def test_rubble_makes_the_hex_rubble_for_movement() -> None:
    plain, rubbled = clirun.run("move", "S7", "T6"), clirun.run("move", "S7", "T6", "--rubble", "T6")
    assert _value(plain.stdout, "cost") == "1½" and _value(rubbled.stdout, "cost") == "3½"


def test_a_counter_off_the_map_is_one_line_exit_2() -> None:
    bad = clirun.run("los", "W2", "W6", "--smoke", "ZZ99")
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr
