from .cli import run_program

run_program()
