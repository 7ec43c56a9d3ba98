from asl_terrain.cli import main

main()
