"""The command-line front door (typer + rich). No logic the Python API lacks."""
