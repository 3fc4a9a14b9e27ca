"""Checkpoints: state_dict and torch.save/torch.load round trips between
devices, resuming training, map_location, partial loads. Each program is
written as a PyTorch user writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import copy
import io

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..conftest import DEV
from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    train_step,
    weights,
)


def test_checkpoint_save_load_resume_training_through_bytes_io():
    def program(dev):
        model = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.GELU(), nn.Linear(7, 2))
        model.to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        x, y = torch.randn(16, 5).to(dev), torch.randn(16, 2).to(dev)

        def step():
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            return loss.detach()

        losses = [step(), step()]
        buffer = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(),
                    "sched": scheduler.state_dict(), "epoch": 2}, buffer)
        buffer.seek(0)
        ckpt = torch.load(buffer, map_location=dev, weights_only=True)
        model2 = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.GELU(), nn.Linear(7, 2))
        model2.to(dev)
        model2.load_state_dict(ckpt["model"])
        model, optimizer = model2, torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9,
                                                   nesterov=True)
        optimizer.load_state_dict(ckpt["opt"])
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        scheduler.load_state_dict(ckpt["sched"])
        losses += [step(), step()]
        whole = io.BytesIO()
        torch.save(model, whole)  # the module itself, pickled
        whole.seek(0)
        clone = torch.load(whole, weights_only=False)
        clone[0].weight = clone[0].weight  # only a Parameter may take a parameter's slot
        return {"losses": losses, "weights": weights(model), "epoch": ckpt["epoch"],
                "clone": weights(clone), "clone_params": [
                    isinstance(p, nn.Parameter) and p.requires_grad for p in clone.parameters()],
                "running_mean": model[1].running_mean, "batches": model[1].num_batches_tracked,
                "lr": optimizer.param_groups[0]["lr"]}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_lazy_checkpoint_loads_onto_the_cpu_with_map_location_cpu():
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(3.0).to(DEV)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer, map_location="cpu")["w"].device.type == "cpu"


def test_partial_fine_tuning_with_strict_false_load_parametrization_and_lr_chain():
    class Symmetric(nn.Module):
        def forward(self, w):
            return w.triu() + w.triu(1).transpose(0, 1)

    def make(dev, classes):
        return nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6), nn.ReLU(),
                             nn.Linear(6, classes)).to(dev)

    x, y = torch.randn(24, 6), torch.randint(0, 4, (24,))

    def program(dev):
        torch.manual_seed(11)
        pre = make(dev, 3)
        pre(x.to(dev))  # running stats move
        state = {k: v for k, v in pre.state_dict().items() if not k.startswith("3.")}
        model = make(dev, 4)
        result = model.load_state_dict(state, strict=False)
        nn.utils.parametrize.register_parametrization(model[0], "weight", Symmetric())
        for p in model[1].parameters():
            p.requires_grad_(False)
        opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
        warm = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        poly = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, poly], milestones=[2])
        xs, ys, out = x.to(dev), y.to(dev), [sorted(result.missing_keys)]
        for _ in range(4):
            loss = F.cross_entropy(model(xs), ys)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            out += [loss.item(), sched.get_last_lr()[0]]
        w = model[0].weight
        buffers = {k: v for k, v in model.named_buffers()}
        return out + [w, torch.equal(w.cpu(), w.T.cpu()), buffers,
                      model[0].parametrizations.weight.original.grad, model[1].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_state_dict_bytes_io_round_trip_and_early_stopping_best_weights():
    def program(dev):
        model = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.2)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        x, y = torch.randn(20, 3).to(dev), torch.randn(20, 1).to(dev)
        best, best_state, out = float("inf"), None, []
        for _ in range(5):
            loss = F.mse_loss(model(x[:15]), y[:15])
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                val = F.mse_loss(model(x[15:]), y[15:]).item()
            sched.step(val)
            if val < best:
                best, best_state = val, copy.deepcopy(model.state_dict())
            out += [val, opt.param_groups[0]["lr"]]
        buf = io.BytesIO()
        torch.save({"model": best_state, "opt": opt.state_dict()}, buf)
        buf.seek(0)
        ckpt = torch.load(buf, weights_only=True)
        fresh = nn.Sequential(nn.Linear(3, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        fresh.load_state_dict(ckpt["model"])
        with torch.no_grad():
            restored = F.mse_loss(fresh(x[15:]), y[15:]).item()
        return out + [best, restored, fresh(x).detach()]

    same_on_both(program, rtol=1e-4, atol=1e-6)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_resume_model_optimizer_and_scheduler_from_bytes_io_matches_uninterrupted_training():
    def make(dev):
        model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
        model = model.to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return model, opt, sched

    def train(model, opt, sched, x, y, steps, dev):
        out = []
        for _ in range(steps):
            loss = F.cross_entropy(model(x), y)
            train_step(opt, loss, dev, out, 0, None, settled=1)
            sched.step()
        return out

    def program(dev):
        x, y = torch.randn(16, 5).to(dev), torch.randint(0, 2, (16,)).to(dev)
        torch.manual_seed(1)
        model, opt, sched = make(dev)
        straight = train(model, opt, sched, x, y, 6, dev)
        torch.manual_seed(1)
        model, opt, sched = make(dev)
        resumed = train(model, opt, sched, x, y, 3, dev)
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict()}, buf)
        buf.seek(0)
        saved = torch.load(buf, weights_only=True)
        model2, opt2, sched2 = make(dev)
        model2.load_state_dict(saved["model"])
        opt2.load_state_dict(saved["opt"])
        sched2.load_state_dict(saved["sched"])
        resumed += train(model2, opt2, sched2, x, y, 3, dev)
        torch.testing.assert_close(torch.stack(resumed).cpu(), torch.stack(straight).cpu())
        return straight + [model2[1].running_var, opt2.state[opt2.param_groups[0]["params"][0]]
                           ["exp_avg_sq"], saved["opt"]["state"][0]["step"]]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_state_dict_round_trip_through_torch_save_between_devices():
    def program(dev):
        model = nn.Sequential(nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6),
                              nn.Linear(6, 1)).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        x, y = torch.randn(8, 4).to(dev), torch.randn(8, 1).to(dev)

        def step():
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.detach()

        losses = [step(), step()]
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
        buf.seek(0)
        state = torch.load(buf, map_location="cpu")
        cpu_model = nn.Sequential(nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6),
                                  nn.Linear(6, 1))
        cpu_model.load_state_dict(state["model"])
        model2 = cpu_model.to(dev)
        opt2 = torch.optim.Adam(model2.parameters(), lr=0.01)
        opt2.load_state_dict(state["opt"])
        model, opt = model2, opt2
        losses += [step(), step()]
        return [losses, {k: v for k, v in model.state_dict().items()},
                state["model"]["1.num_batches_tracked"].device.type]

    same_on_both(program, rtol=1e-5, atol=1e-5)


def test_torch_load_map_location_moves_lazy_tensors_off_the_lazy_device():
    """torch.load(buf, map_location='cpu') of a lazy state dict gave lazy
    tensors (the pickled lazy tensor always came back on the lazy device);
    now map_location (a string, device, dict from 'lazy:0', or a callable
    given the CPU storage and 'lazy:0') applies, as to any tensor, and
    without it they come back lazy."""
    buf = io.BytesIO()
    torch.save({"w": torch.arange(3.).to(DEV), "p": nn.Parameter(torch.ones(2).to(DEV))}, buf)
    for where, device_type in [("cpu", "cpu"), (torch.device("cpu"), "cpu"),
                               ({"lazy:0": "cpu"}, "cpu"), (None, "lazy"), ("lazy", "lazy"),
                               (lambda storage, loc: storage, "cpu"),
                               (lambda storage, loc: None, "lazy")]:
        buf.seek(0)
        state = torch.load(buf, map_location=where)
        assert {v.device.type for v in state.values()} == {device_type}
        assert torch.equal(state["w"].cpu(), torch.arange(3.))
        assert isinstance(state["p"], nn.Parameter) and state["p"].requires_grad
