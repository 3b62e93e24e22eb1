"""experiment_target: `bazel run //experiments:<name>` for one experiment."""

def experiment_target(name):
    """A runnable target for <name>.mini.textproto and <name>.paper.textproto.

    It runs //experiments:run_experiment with both scale presets and the
    embedded corpus; `--scale` picks the preset.
    """
    native.sh_binary(
        name = name,
        srcs = ["run_experiment.sh"],
        args = [
            "$(rootpath :run_experiment)",
            "--experiment_mini=$(rootpath %s.mini.textproto)" % name,
            "--experiment_paper=$(rootpath %s.paper.textproto)" % name,
            "--default_corpus=$(rootpath //tasks/corpus:default_corpus)",
        ],
        data = [
            ":run_experiment",
            name + ".mini.textproto",
            name + ".paper.textproto",
            "//tasks/corpus:default_corpus",
        ],
    )
