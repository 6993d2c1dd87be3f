"""A toy game, "highest card wins", defined only in the tests: it proves that a game plugs into
kaartlab through the files the "add a game" checklist names (docs/architecture.md), here gathered
in one package: enums, kernel, runner, rules text."""
