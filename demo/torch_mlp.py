"""The digits MLP as an ordinary ``nn.Module`` trained with ``torch.optim``:
once eagerly on the CPU, once lazily on lazytensor's device. The training
code is the same function; the lazy run only puts the model and batches on
``lazytensor.torch.device()`` and calls ``mark_step()`` after each step, as
with torch_xla.
"""

from __future__ import annotations

import argparse

from demo import data
from demo.common import Result, fit, frontend_missing, import_frontend, report

HIDDEN = 256
BATCH = 128
EPOCHS = 20


def make_model(torch):
    """The same initial weights for both runs (fixed seed)."""
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(64, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, data.N_CLASSES),
    )


def train(torch, digits: data.Digits, epochs: int, device, mark_step=lambda: None,
          capture=lambda step: step) -> tuple:
    """Train on ``device``; ``mark_step`` ends each step (lazy runs);
    ``capture`` wraps the step function (``lazytensor.torch.capture``)."""
    model = make_model(torch).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = [(torch.from_numpy(x).to(device), torch.from_numpy(y).to(device))
               for x, y in digits.batches(BATCH, 0)]

    @capture
    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    def run_epoch(epoch: int) -> tuple[int, float]:
        for x, y in batches:
            loss = step(x, y)
            mark_step()
        return len(batches), loss.item()

    steps, loss, first, rate = fit(run_epoch, epochs)
    with torch.no_grad():
        logits = model(torch.from_numpy(digits.x_test).to(device))
        acc = (logits.argmax(dim=1).cpu() == torch.from_numpy(digits.y_test)).float().mean()
    return float(acc), loss, steps, first, rate


def main(args: argparse.Namespace) -> int:
    import torch

    epochs = args.epochs or EPOCHS
    digits = data.load()
    print(f"digits: {len(digits.y_train)} train / {len(digits.y_test)} test images; "
          f"nn.Sequential MLP 64-{HIDDEN}-{HIDDEN}-10, batch {BATCH}, {epochs} epochs, "
          "SGD with momentum")
    eager = Result("torch (eager CPU)", *train(torch, digits, epochs, torch.device("cpu")))
    try:
        lazy_torch = import_frontend("lazytensor.torch")
        from lazytensor.core import metrics
    except ImportError as exc:
        report("torch frontend", eager, None)
        return frontend_missing("lazytensor.torch", exc)
    metrics.reset()
    lazy = Result("lazytensor.torch (lazy)", *train(torch, digits, epochs, lazy_torch.device(),
                                                    mark_step=lazy_torch.mark_step))
    captured = Result("lazytensor.torch capture", *train(torch, digits, epochs,
                                                          lazy_torch.device(),
                                                          capture=lazy_torch.capture))
    report("torch frontend: the same nn.Module, eager, lazy and captured", eager, lazy,
           metrics.report(), captured)
    return 0
