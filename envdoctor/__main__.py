"""`python -m envdoctor` is the same as the `envdoctor` console script."""

from envdoctor.cli import main

if __name__ == "__main__":
    main()
