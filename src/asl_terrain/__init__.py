"""asl-terrain: rules for the terrain of Advanced Squad Leader, as rulings that cite the rule.

Modules: :mod:`~asl_terrain.grid` (hexes, hexsides, vertices, exact threads), :mod:`~asl_terrain.model`
(maps and Locations), :mod:`~asl_terrain.chart` (the terrain chart), :mod:`~asl_terrain.movement`,
:mod:`~asl_terrain.los`, :mod:`~asl_terrain.effects`, :mod:`~asl_terrain.setup` (the engines),
:mod:`~asl_terrain.render` (pictures), :mod:`~asl_terrain.ask` (the batch format) and
:mod:`~asl_terrain.cli`.
"""

__version__ = "0.1.0"
