"""Shared command line of the end-to-end training scripts (plain PyTorch code).

--save-init writes the freshly built model's state_dict, --load-init starts from
one, so two libraries can be compared from identical weights. --device runs the
script on another device (the model and its batches move there, as in
PyTorch's tutorials), so a GPU's loss curve can be compared with the CPU's."""
import argparse


def parse_args(default_steps):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=default_steps)
    p.add_argument("--save-init")
    p.add_argument("--load-init")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    return p.parse_args()


def prepare(torch, model, args):
    if args.load_init:
        model.load_state_dict(torch.load(args.load_init))
    if args.save_init:
        torch.save(model.state_dict(), args.save_init)
    model.to(args.device)


def report(step, loss):
    print(f"loss {step} {loss:.8f}", flush=True)
