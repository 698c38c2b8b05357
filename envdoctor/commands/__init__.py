"""One module per subcommand; ``envdoctor.cli`` lists them."""
