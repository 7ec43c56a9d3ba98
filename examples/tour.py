"""A short tour of asl-terrain on the bundled demo map (run by scripts/demo).

Each ruling is printed as a player would read it: the answer, then the engine's explanation, which names
the rules. The same rulings come from the CLI (`asl-terrain move ...`) and from `asl-terrain ask`.
"""

from __future__ import annotations

from asl_terrain import effects, los, movement, setup
from asl_terrain.model import load_demo
from asl_terrain.units import Unit


def show(title: str, ruling: object) -> None:
    print(f"\n== {title}")
    print(ruling.explain())  # type: ignore[attr-defined]


def main() -> None:
    m = load_demo()
    at = m.parse_location
    print(f"Demo map {m.name!r} (prefix {m.prefix}), {len(m)} hexes. Picture: out/demo.png")
    infantry, tank = Unit.from_json("infantry"), Unit.from_json("vehicle")

    show("Up the hill road across a slope hexside (B3.4, P2.51)",
         movement.move_cost(m, infantry, at("HrS7"), at("HrT6")))
    show("A tank at the Crest-Line slope HrV4-V3 (P2.53)", movement.move_cost(m, tank, at("HrV4"), at("HrV3")))
    show("Four moves down the main road with the road bonus (B3.4)",
         movement.path(m, infantry, ["HrM15", "HrM14", "HrM13", "HrM12", "HrM11"]))
    show("The same road through SMOKE at HrM16 (B3.4)",
         movement.path(m, infantry, ["HrM18", "HrM17", "HrM16", "HrM15", "HrM14"]))
    show("Into the Stream Culvert from the bank (P4.21)", movement.move_cost(m, infantry, at("HrE8"), at("HrF8/culvert")))
    show("LOS from Up-Slope HrW2 over the plateau's Crest Line (P2.3)", los.los(m, at("HrW2"), at("HrW6")))
    show("The same from HrV2, which is not Up-Slope", los.los(m, at("HrV2"), at("HrV6")))
    show("From the church steeple (P5.2)", los.viewshed(m, at("HrK10/2")))
    show("Hidden mines beside a paved Narrow Street (P5.142)",
         setup.can_set_up(m, "mines", at("HrL12"), mine_kind="A-P", hidden=True))
    show("Stacking in the steeple (P5.21)", setup.stacking_limit(m, at("HrK10/2")))
    show("What reaches a unit Bypassing along the square's street HrL11-L12 (P5.131, P5.142)",
         effects.bypass_effects(m, m.parse_hexside("HrL11-L12")))
    print("\nMore: asl-terrain --help; the batch answers are in out/demo-answers.json.")


if __name__ == "__main__":
    main()
