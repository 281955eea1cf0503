"""python -m torchlike.distributed.launch: the old launcher's interface.

Like torch.distributed.launch: it passes --local-rank=N to the script unless
--use_env is given (then the script reads LOCAL_RANK from the environment).
Everything else is torchlike.distributed.run's."""
import sys
import warnings

from torchlike.distributed import run as _run


def parse_args(args):
    parser = _run.get_args_parser()
    parser.add_argument("--use_env", "--use-env", action="store_true",
                        help="do not pass --local-rank to the script; it reads LOCAL_RANK")
    return parser.parse_args(args)


def launch(args):
    if args.no_python and not args.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the '--use-env' flag.")
    return _run.run(args, local_rank_arg=not args.use_env)


def main(args=None):
    warnings.warn("The module torch.distributed.launch is deprecated and will be removed in future. "
                  "Use torchrun.\nNote that --use-env is set by default in torchrun.\n"
                  "If your script expects `--local-rank` argument to be set, please\n"
                  "change it to read from `os.environ['LOCAL_RANK']` instead.", FutureWarning)
    args = parse_args(args if args is not None else sys.argv[1:])
    sys.exit(launch(args))


if __name__ == "__main__":
    main()
