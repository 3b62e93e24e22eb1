"""experiment_target: `bazel run //<package>:<name>` for one experiment."""

def experiment_target(name, experiment = None, variants = [], script = None, small = False, gpu = False):
    """A runnable target for an experiment's scale presets.

    It runs //experiments:run_experiment with <experiment>.mini.textproto
    and <experiment>.paper.textproto (and <experiment>.small.textproto where
    `small`, <experiment>.gpu.textproto where `gpu`); `--scale` picks the
    preset. The
    embedded corpus comes in the runner's own runfiles, and the files of
    ablations/ that experiments refer to in this target's.

    Args:
      name: the target's name.
      experiment: the experiment's label without the suffix (default
        `name` in this package), e.g. "//experiments:table5_ablation".
      variants: run only these variants (--variants); default all.
      script: the shell script that starts the runner (default
        //experiments:run_experiment.sh, which just runs it).
      small: the experiment has a small-scale preset (--scale=small).
      gpu: the experiment has a one-GPU-hour preset (--scale=gpu).
    """
    experiment = experiment or name
    mini = experiment + ".mini.textproto"
    paper = experiment + ".paper.textproto"
    runner = "//experiments:run_experiment"
    args = [
        "$(rootpath %s)" % runner,
        "--experiment_mini=$(rootpath %s)" % mini,
        "--experiment_paper=$(rootpath %s)" % paper,
    ]
    presets = [mini, paper]
    if small:
        presets.append(experiment + ".small.textproto")
        args.append("--experiment_small=$(rootpath %s)" % presets[-1])
    if gpu:
        presets.append(experiment + ".gpu.textproto")
        args.append("--experiment_gpu=$(rootpath %s)" % presets[-1])
    if variants:
        args.append("--variants=" + ",".join(variants))
    native.sh_binary(
        name = name,
        srcs = [script or "//experiments:run_experiment.sh"],
        args = args,
        data = [runner, "//ablations:textprotos"] + presets,
    )
