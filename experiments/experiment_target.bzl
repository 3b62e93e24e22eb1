"""experiment_target: `bazel run //experiments:<name>` for one experiment."""

def experiment_target(name):
    """A runnable target for <name>.mini.textproto and <name>.paper.textproto.

    It runs //experiments:run_experiment with both scale presets;
    `--scale` picks the preset. The embedded corpus comes in the runner's
    own runfiles.
    """
    native.sh_binary(
        name = name,
        srcs = ["run_experiment.sh"],
        args = [
            "$(rootpath :run_experiment)",
            "--experiment_mini=$(rootpath %s.mini.textproto)" % name,
            "--experiment_paper=$(rootpath %s.paper.textproto)" % name,
        ],
        data = [
            ":run_experiment",
            name + ".mini.textproto",
            name + ".paper.textproto",
        ],
    )
