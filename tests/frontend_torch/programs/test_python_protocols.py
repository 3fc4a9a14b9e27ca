"""Python protocols and control flow on lazy values: repr/str/format,
item/tolist/bool in training loops, zero-dim tensors as numbers, marking
steps every iteration. Each program is written as a PyTorch user writes it,
run eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the
same seed, and compared (values, dtypes, shapes; see ``programs.py``);
training programs also check that later steps compile nothing new."""


from __future__ import annotations

import copy
import math

import lazytensor.torch as lt
import torch
import torch.nn.functional as F
from torch import nn

from ..conftest import DEV
from ..lazy_vs_eager import same_on_both


def test_observation_item_tolist_print_and_control_flow(capsys):
    def program(dev):
        x = torch.tensor([[1.5, -2.0], [0.25, 4.0]]).to(dev)
        total = x.sum()
        steps = 0
        while total.item() > 1.0 and steps < 10:  # Python control flow on tensor values
            total = total * 0.5
            steps += 1
        if (x > 0).all():
            branch = "all positive"
        elif x.max() > 3:
            branch = "big"
        else:
            branch = "other"
        print(x)
        print(x.sum())
        return {"steps": steps, "branch": branch, "list": x.tolist(), "item": x[1, 1].item(),
                "int": int(x.argmax()), "float": float(x.mean()), "total": total,
                "numpy": x.cpu().numpy().tolist(), "len": len(x), "shape": list(x.shape)}

    same_on_both(program)
    printed = capsys.readouterr().out
    assert "device='lazy:0'" in printed and "tensor(3.7500" in printed


def test_repr_str_format_and_python_number_protocols():
    def program(dev):
        x = torch.tensor([[1.5, -2.0, 3.25]]).to(dev)
        i = torch.tensor([4, 5]).to(dev)
        leaf = torch.ones(3).to(dev).requires_grad_()
        (leaf * torch.arange(3.0).to(dev)).sum().backward()
        return {"repr": repr(x).replace(", device='lazy:0'", ""), "str": str(i.sum()).replace(
            ", device='lazy:0'", ""), "format": f"{x.sum().item():.3f}", "fmt": f"{x[0, 0]:.2f}",
            "index": [10, 20, 30, 40, 50, 60][i[0]], "range": list(range(i[0])),
            "bool": bool(x[0, 0] > 1), "float": float(x[0, 1]), "int": int(i[1]),
            "round": round(float(x[0, 2]), 1), "complex": complex(x[0, 0]).real,
            "contains": 5 in i, "iter": [int(v) for v in i], "eq_list": (i == 4).tolist(),
            "numpy_dtype": str(x.cpu().numpy().dtype), "abs": abs(x).tolist(),
            "neg": (-i).tolist(), "dlist": x.double().tolist(), "bool_list": (x > 0).tolist(),
            "from_0d_list": torch.tensor([x.sum(), x.max(), i[0]]),  # .item() each, in C++
            "param_repr": repr(nn.Parameter(x[0, :2].clone())).replace(", device='lazy:0'", ""),
            "percent": "%.2f|%d" % (x[0, 0], i[1]), "deepcopy_grad": copy.deepcopy(leaf).grad}

    same_on_both(program)


def test_mark_step_every_iteration_keeps_views_and_aliases_consistent():
    def program(dev):
        buf = torch.zeros(4, 6).to(dev)
        window = buf[1:3, 2:]
        col = buf.select(1, 0)
        flat = buf.view(-1)
        out = []
        for step in range(3):
            window.add_(step + 1)
            col.copy_(torch.arange(4.0).to(dev) * step)
            flat[step] = -1.0
            buf.t()[5].mul_(2)
            if dev == DEV:
                lt.mark_step()
            out.append(buf.clone())
        return {"snapshots": out, "window": window, "col": col, "flat": flat,
                "data_ptr_same": window.storage_offset() == 8}

    same_on_both(program)


def test_item_tolist_bool_in_training_loop_control_flow():
    def program(dev):
        model = nn.Linear(3, 1).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 3).to(dev), torch.randn(16, 1).to(dev)
        best, history, steps = float("inf"), [], 0
        while steps < 20:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            if bool(torch.isfinite(loss)) and loss.item() < best:
                best = loss.item()
            if (loss < 0.01) or steps > 6:
                break
            history.append(model.weight.grad.abs().max().tolist())
            opt.step()
            steps += 1
        w = model.weight.detach()
        return [best, history, steps, w.tolist(), int(w.argmax()), float(w.sum()),
                w.shape[1] == 3, (w > 0).any().item(), w.numel()]

    same_on_both(program)


def test_python_protocols_on_zero_dim_tensors():
    import copy
    import operator

    def program(dev):
        t = torch.tensor([3.7, -1.2, 2.0]).to(dev)
        i = torch.tensor([2, 0, 1]).to(dev)
        parts = [t[0], t[1], t[2]]
        lst = ["a", "b", "c"]
        out = [max(parts).item(), min(parts).item(), sum(parts), sorted(parts)[0].item(),
               math.sqrt(t[0]), round(float(t[0]), 1), int(t[0]), float(t[1]), lst[i[0]],
               list(range(i[0])), operator.index(i[2]), abs(t[1]).item(), -t[1], t[0] > 1,
               bool(t[0] > 1), f"{t[0]:.2f}", t[2] == 2, complex(t[0]), divmod(7, int(i[0])),
               torch.tensor([t[0].item(), t[1].item()]).to(dev),
               torch.stack([p * 2 for p in parts]), torch.as_tensor([1, 2], device=dev),
               t.new_tensor([1., 2.]), t.new_zeros(2, dtype=torch.int64), len(t), t.tolist(),
               [float(v) for v in t], t[i], i.numel(), t.dim(), t.size(0), t.shape[-1],
               hash(t) is not None, t[0].item().__class__.__name__, i[0].item().__class__.__name__,
               copy.deepcopy(t), t.clone().detach(), torch.tensor(t[0].item() * 2), 3 in i,
               t.any().item(), t.isfinite().all().item()]
        return out

    same_on_both(program)
