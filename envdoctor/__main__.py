"""`python -m envdoctor` is the same as the `envdoctor` console script."""

from envdoctor.cli import run

if __name__ == "__main__":
    run()
