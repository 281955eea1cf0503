"""Train a small CNN on scikit-learn's 8x8 handwritten digits with torchlike.

The whole training stack in one script, written as a PyTorch user writes it:
Dataset + DataLoader with worker processes, nn.Module, AdamW with a learning-rate
schedule, a tqdm progress bar, a model summary, checkpoint save/reload, and a plot.

    python examples/train_digits.py [--epochs 12] [--workers 2] [--out digits_out]
"""
import argparse
import os
import time

import numpy as np

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.utils.data import DataLoader, Dataset


class Digits(Dataset):
    """scikit-learn's 1,797 8x8 digit images (packaged with sklearn: no download),
    scaled to [0, 1] as 1x8x8 float tensors."""

    def __init__(self, images, labels):
        self.images = torch.from_numpy((images / 16.0).astype(np.float32)).reshape(-1, 1, 8, 8)
        self.labels = torch.from_numpy(labels.astype(np.int64))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


class DigitNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total, loss_sum / total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="digits_out")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args(argv)

    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from tqdm import tqdm

    start = time.perf_counter()
    torch.manual_seed(args.seed)
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.images, digits.target, test_size=0.2, random_state=args.seed, stratify=digits.target)
    train_set, test_set = Digits(x_train, y_train), Digits(x_test, y_test)
    generator = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                              generator=generator, persistent_workers=args.workers > 0,
                              pin_memory=args.device.startswith("cuda"))
    test_loader = DataLoader(test_set, batch_size=256)

    device = torch.device(args.device)
    model = DigitNet().to(device)
    print(f"device: {device}")
    print(torch.utils.summary(model, input_size=(args.batch_size, 1, 8, 8)))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    for epoch in range(1, args.epochs + 1):
        model.train()
        running = seen = 0
        bar = tqdm(train_loader, desc=f"epoch {epoch:2d}/{args.epochs}", leave=False, disable=args.no_progress)
        for x, y in bar:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item() * y.numel()
            seen += y.numel()
            bar.set_postfix(loss=f"{running / seen:.4f}")
        acc, test_loss = evaluate(model, test_loader, device)
        history["train_loss"].append(running / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(acc)
        print(f"epoch {epoch:2d}  train loss {running / seen:.4f}  test loss {test_loss:.4f}  "
              f"test accuracy {acc * 100:.2f}%")

    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "digits_cnn.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": args.epochs, "history": history}, ckpt_path)
    restored = DigitNet().to(device)
    checkpoint = torch.load(ckpt_path)  # weights_only=True: tensors and plain containers only
    restored.load_state_dict(checkpoint["model"])
    restored_acc, _ = evaluate(restored, test_loader, device)
    print(f"checkpoint {ckpt_path} reloaded into a fresh model: test accuracy {restored_acc * 100:.2f}% "
          f"({'same' if restored_acc == history['test_acc'][-1] else 'DIFFERENT'} as before saving)")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    epochs = range(1, args.epochs + 1)
    ax_loss.plot(epochs, history["train_loss"], label="train")
    ax_loss.plot(epochs, history["test_loss"], label="test")
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("cross-entropy")
    ax_loss.legend()
    ax_acc.plot(epochs, [a * 100 for a in history["test_acc"]], color="tab:green")
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("test accuracy (%)")
    fig.tight_layout()
    plot_path = os.path.join(args.out, "digits_curves.png")
    fig.savefig(plot_path, dpi=100)
    print(f"curves written to {plot_path}; total time {time.perf_counter() - start:.1f} s")
    return history["test_acc"][-1], restored_acc


if __name__ == "__main__":
    main()
