"""Ordinary PyTorch programs, round seven (initializers on lazy parameters,
train/eval switches, module containers, feature hooks, an R1 penalty through
a convolution, a VAE and an actor-critic with torch.distributions, a
recommender, graph attention, patch denoising...) run eagerly on the CPU and
lazily from the same seed and compared (values, dtypes, shapes; see
``programs.py``); where a program marks steps, the later steps must neither
recompile nor fall back, and no program falls back."""

from __future__ import annotations

import math

import lazytensor.torch as lt
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Bernoulli, Categorical, Normal, kl_divergence

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_without_fallback, step_mark, train_step


def test_initializers_on_lazy_parameters_then_the_same_forward_on_both_devices():
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(),
                        nn.Linear(16, 3)).to(DEV)
    start = fallbacks()
    with torch.no_grad():
        nn.init.trunc_normal_(net[0].weight, std=0.5, a=-0.6, b=0.6)
        nn.init.orthogonal_(net[2].weight, gain=2.0)
        nn.init.kaiming_uniform_(net[4].weight, a=math.sqrt(5))
        nn.init.xavier_normal_(net[4].weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.zeros_(net[0].bias)
        nn.init.constant_(net[2].bias, 0.1)
    lt.mark_step()
    assert fallbacks() == start
    w0, w2 = net[0].weight.cpu(), net[2].weight.cpu()
    assert w0.abs().max() <= 0.6 and w0.std() > 0.2
    torch.testing.assert_close(w2 @ w2.T, 4 * torch.eye(16), atol=1e-4, rtol=0)
    state = {k: v.cpu() for k, v in net.state_dict().items()}
    x = torch.randn(4, 8)
    cpu = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(),
                        nn.Linear(16, 3))
    cpu.load_state_dict(state)
    torch.testing.assert_close(net(x.to(DEV)).cpu(), cpu(x), rtol=1e-4, atol=1e-5)
    assert fallbacks() == start


def test_train_eval_switching_with_dropout_batchnorm_flatten_unflatten_and_inference_mode():
    def program(dev):
        model = nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4),
            nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.0), nn.Linear(64, 10),
            nn.BatchNorm1d(10, momentum=None)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(5, 16, 64).to(dev), torch.randint(0, 10, (5, 16)).to(dev)
        out, first = [], None
        for step in range(4):
            model.train()
            loss = F.cross_entropy(model(x[step]), y[step])
            first = train_step(opt, loss, dev, out, step, first, settled=2)
            model.eval()
            with torch.inference_mode():
                acc = (model(x[4]).argmax(1) == y[4]).float().mean()
            out.append(acc)
        assert not acc.requires_grad and acc.is_inference()
        return out + [model[2].running_mean, model[2].num_batches_tracked,
                      model[8].running_var, model[8].num_batches_tracked]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_multi_task_heads_in_a_module_dict_with_a_parameter_list_of_task_weights():
    class MultiTask(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
            self.heads = nn.ModuleDict({"cls": nn.Linear(12, 3), "reg": nn.Linear(12, 1)})
            self.log_vars = nn.ParameterList([nn.Parameter(torch.zeros(())) for _ in range(2)])

        def forward(self, x):
            h = self.trunk(x)
            return {name: head(h) for name, head in self.heads.items()}

    def program(dev):
        model = MultiTask().to(dev)
        decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
        rest = [p for n, p in model.named_parameters() if not n.endswith("weight")]
        opt = torch.optim.Adam([{"params": decay, "weight_decay": 1e-2}, {"params": rest}],
                               lr=1e-2)
        x = torch.randn(20, 6).to(dev)
        cls, reg = torch.randint(0, 3, (20,)).to(dev), torch.randn(20, 1).to(dev)
        out, first = [], None
        for step in range(3):
            pred = model(x)
            losses = [F.cross_entropy(pred["cls"], cls), F.mse_loss(pred["reg"], reg)]
            loss = sum(torch.exp(-s) * l + s for s, l in zip(model.log_vars, losses, strict=True))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [p.detach() for p in model.log_vars] + [model.heads["reg"].bias]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_feature_matching_with_forward_hooks_backward_hooks_and_gradient_scaling():
    def program(dev):
        teacher = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()).to(dev)
        student = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU()).to(dev)
        teacher.requires_grad_(False)
        feats, grads_seen = {}, []

        def keep(name):
            def hook(module, args, output):
                feats[name] = output
            return hook

        handles = [teacher[1].register_forward_hook(keep("t")),
                   student[1].register_forward_hook(keep("s")),
                   student[2].register_full_backward_hook(
                       lambda m, gin, gout: grads_seen.append(gout[0].norm()))]
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        x = torch.randn(12, 5).to(dev)
        out = []
        for step in range(3):
            with torch.no_grad():
                target = teacher(x)
            pred = student(x)
            feats["s"].register_hook(lambda g: g * 0.5)
            loss = F.mse_loss(pred, target) + F.mse_loss(feats["s"], feats["t"])
            train_step(opt, loss, dev, out, step, None, settled=9)
        for h in handles:
            h.remove()
        student(x)
        return out + grads_seen + [student[0].weight.grad, len(grads_seen)]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_r1_gradient_penalty_through_a_convolutional_discriminator():
    def program(dev):
        disc = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.Softplus(),
                             nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.Softplus(),
                             nn.Flatten(), nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam(disc.parameters(), lr=1e-3, betas=(0.0, 0.99))
        real, fake = torch.randn(6, 1, 8, 8).to(dev), torch.randn(6, 1, 8, 8).to(dev)
        out, first = [], None
        for step in range(3):
            real.requires_grad_(True)
            d_real = disc(real)
            (grad,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
            r1 = grad.pow(2).flatten(1).sum(1).mean()
            loss = F.softplus(-d_real).mean() + F.softplus(disc(fake)).mean() + 5.0 * r1
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            real = real.detach_()
        return out + [disc[0].weight, real.requires_grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_bernoulli_vae_with_normal_posterior_and_kl_divergence():
    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(16, 2 * 3)
            self.dec = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 16))

        def forward(self, x, eps):
            mu, log_std = self.enc(x).chunk(2, dim=1)
            q = Normal(mu, log_std.exp())
            z = q.loc + q.scale * eps
            recon = Bernoulli(logits=self.dec(z)).log_prob(x).sum(1)
            kl = kl_divergence(q, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(1)
            return (kl - recon).mean(), q.log_prob(z).sum(1)

    def program(dev):
        model = VAE().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        x = (torch.rand(10, 16) > 0.5).float().to(dev)
        out, first = [], None
        for step in range(3):
            eps = torch.randn(10, 3).to(dev)
            loss, log_q = model(x, eps)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        z = Normal(torch.zeros(4, 3, device=dev), 1.0).sample()
        assert z.shape == (4, 3) and z.device == x.device
        return out + [log_q, model.enc.weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_advantage_actor_critic_with_categorical_log_prob_and_entropy():
    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh())
            self.pi, self.v = nn.Linear(16, 3), nn.Linear(16, 1)

        def forward(self, obs):
            h = self.body(obs)
            return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)

    def program(dev):
        model = ActorCritic().to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
        obs, rewards = torch.randn(4, 8, 4).to(dev), torch.rand(4, 8).to(dev)
        actions = torch.randint(0, 3, (4, 8)).to(dev)
        out, first = [], None
        for step in range(4):
            dist, value = model(obs[step])
            returns = torch.zeros_like(rewards[step])
            running = value[-1].detach()
            for t in reversed(range(8)):
                running = rewards[step, t] + 0.99 * running
                returns[t] = running
            adv = returns - value
            loss = (-(dist.log_prob(actions[step]) * adv.detach()).mean()
                    + 0.5 * adv.pow(2).mean() - 0.01 * dist.entropy().mean())
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)  # no grads yet: a no-op
            first = train_step(opt, loss, dev, out, step, first, settled=2)
        drawn = dist.sample()
        assert drawn.dtype == torch.int64 and bool(((drawn >= 0) & (drawn < 3)).all())
        return out + [dist.probs, model.v.bias]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_bpr_recommender_with_topk_recall_and_cumsum_ndcg():
    class MF(nn.Module):
        def __init__(self, users=12, items=20, d=8):
            super().__init__()
            self.u, self.i = nn.Embedding(users, d), nn.Embedding(items, d)
            self.item_bias = nn.Parameter(torch.zeros(items))

        def score(self, users, items):
            return (self.u(users) * self.i(items)).sum(-1) + self.item_bias[items]

    def program(dev):
        model = MF().to(dev)
        opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
        users = torch.randint(0, 12, (4, 32)).to(dev)
        pos, neg = torch.randint(0, 20, (4, 32)).to(dev), torch.randint(0, 20, (4, 32)).to(dev)
        out, first = [], None
        for step in range(4):
            diff = model.score(users[step], pos[step]) - model.score(users[step], neg[step])
            loss = -F.logsigmoid(diff).mean()
            first = train_step(opt, loss, dev, out, step, first, settled=2)
        with torch.no_grad():
            scores = model.u.weight @ model.i.weight.T + model.item_bias
            seen = torch.zeros(12, 20, device=dev).index_put_(
                (users[0], pos[0]), torch.ones(32, device=dev), accumulate=True) > 0
            scores = scores.masked_fill(seen, float("-inf"))
            top, idx = scores.topk(5, dim=1)
            relevant = torch.zeros(12, 20, device=dev).scatter_(1, pos[1:2].expand(12, -1), 1.0)
            hits = relevant.gather(1, idx)
            discounts = 1.0 / torch.log2(torch.arange(2, 7, device=dev, dtype=torch.float32))
            dcg = (hits * discounts).sum(1)
            ideal = (relevant.sort(1, descending=True).values[:, :5] * discounts).sum(1)
            ndcg = torch.where(ideal > 0, dcg / ideal, torch.zeros_like(dcg))
            recall = hits.cumsum(1)[:, -1] / relevant.sum(1).clamp(min=1)
            popularity = torch.zeros(20, device=dev).index_add_(0, pos.flatten(),
                                                                torch.ones(128, device=dev))
            per_user = torch.zeros(12, dtype=torch.long, device=dev).scatter_add_(
                0, users.flatten(), torch.ones(128, dtype=torch.long, device=dev))
        return out + [top, idx, ndcg, recall, popularity, per_user]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_graph_attention_with_scatter_max_softmax_and_index_add_messages():
    class GATLayer(nn.Module):
        def __init__(self, d_in, d_out):
            super().__init__()
            self.lin = nn.Linear(d_in, d_out, bias=False)
            self.att = nn.Parameter(torch.randn(2 * d_out) * 0.1)

        def forward(self, x, src, dst):
            h = self.lin(x)
            e = F.leaky_relu(torch.cat([h[src], h[dst]], 1) @ self.att, 0.2)
            e_max = torch.full((x.shape[0],), float("-inf"), device=x.device).scatter_reduce(
                0, dst, e, reduce="amax", include_self=True)
            w = (e - e_max[dst]).exp()
            denom = torch.zeros(x.shape[0], device=x.device).index_add_(0, dst, w)
            alpha = w / denom[dst]
            return torch.zeros_like(h).index_add_(0, dst, alpha.unsqueeze(1) * h[src])

    def program(dev):
        n = 10
        src = torch.randint(0, n, (30,))
        dst = torch.randint(0, n, (30,))
        loops = torch.arange(n)
        src, dst = torch.cat([src, loops]).to(dev), torch.cat([dst, loops]).to(dev)
        l1, l2 = GATLayer(5, 8).to(dev), GATLayer(8, 3).to(dev)
        params = list(l1.parameters()) + list(l2.parameters())
        opt = torch.optim.Adam(params, lr=1e-2, weight_decay=5e-4)
        x, y = torch.randn(n, 5).to(dev), torch.randint(0, 3, (n,)).to(dev)
        train_mask = (torch.arange(n) % 3 != 0).to(dev)
        out, first = [], None
        for step in range(3):
            logits = l2(F.elu(l1(x, src, dst)), src, dst)
            loss = F.cross_entropy(logits[train_mask], y[train_mask])
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [logits, l1.att.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_patch_denoiser_with_overlapping_unfold_and_fold_averaging():
    def program(dev):
        patch = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 16)).to(dev)
        opt = torch.optim.NAdam(patch.parameters(), lr=1e-2)
        clean = torch.rand(2, 1, 10, 10).to(dev)
        noisy = clean + 0.1 * torch.randn(3, 2, 1, 10, 10).to(dev)
        ones = torch.ones(1, 1, 10, 10, device=dev)
        counts = F.fold(F.unfold(ones, 4, stride=2), (10, 10), 4, stride=2)
        out, first = [], None
        for step in range(3):
            cols = F.unfold(noisy[step], kernel_size=4, stride=2)
            cols = patch(cols.transpose(1, 2)).transpose(1, 2)
            image = F.fold(cols, (10, 10), kernel_size=4, stride=2) / counts
            loss = F.l1_loss(image, clean)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [image, counts]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_float64_binned_features_with_bucketize_and_long_targets():
    def program(dev):
        boundaries = torch.linspace(-2, 2, 7, dtype=torch.float64).to(dev)
        emb = nn.EmbeddingBag(8 * 3, 4, mode="sum").double().to(dev)
        head = nn.Linear(4 + 3, 2).double().to(dev)
        opt = torch.optim.Adamax(list(emb.parameters()) + list(head.parameters()), lr=1e-2)
        x = torch.randn(16, 3, dtype=torch.float64).to(dev)
        y = (x.sum(1) > 0).long()
        bins = torch.bucketize(x, boundaries, right=True)
        ids = bins + 8 * torch.arange(3, device=dev)
        out, first = [], None
        for step in range(3):
            logits = head(torch.cat([emb(ids), x], 1))
            loss = F.nll_loss(F.log_softmax(logits, 1), y, weight=torch.tensor(
                [1.0, 2.0], dtype=torch.float64, device=dev))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [bins, logits.argmax(1), emb.weight.grad]

    same_without_fallback(program, rtol=1e-9, atol=1e-10)


def test_alternating_freezing_with_requires_grad_and_in_place_detach():
    def program(dev):
        enc, dec = nn.Linear(6, 3).to(dev), nn.Linear(3, 6).to(dev)
        opt = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.1)
        x = torch.randn(8, 6).to(dev)
        out = []
        for step in range(4):
            train_enc = step % 2 == 0
            enc.requires_grad_(train_enc)
            dec.requires_grad_(not train_enc)
            code = enc(x)
            if not train_enc:
                code.detach_()
            loss = F.mse_loss(dec(code), x)
            opt.zero_grad(set_to_none=False)
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), code.requires_grad,
                    *(m.weight.grad.clone() for m in (enc, dec) if m.weight.grad is not None)]
        return out + [enc.weight, dec.bias]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_ranking_metrics_auc_and_average_precision_by_sort_and_cumsum():
    def program(dev):
        model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(40, 5).to(dev)
        y = (x[:, 0] + 0.3 * torch.randn(40).to(dev) > 0).float()
        out, first = [], None
        for step in range(3):
            loss = F.binary_cross_entropy_with_logits(model(x).squeeze(1), y,
                                                      pos_weight=torch.tensor(1.5, device=dev))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        with torch.inference_mode():
            score = model(x).squeeze(1)
            order = torch.argsort(score, descending=True, stable=True)
            hits = y[order]
            tp, fp = hits.cumsum(0), (1 - hits).cumsum(0)
            precision = tp / torch.arange(1, 41, device=dev)
            ap = (precision * hits).sum() / hits.sum()
            ranks = torch.empty_like(score).scatter_(0, order, torch.arange(
                40, 0, -1, device=dev, dtype=score.dtype))
            n_pos = y.sum()
            auc = (ranks[y.bool()].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (40 - n_pos))
            conf = torch.bincount(2 * y.long() + (score > 0).long(), minlength=4).view(2, 2)
        return out + [ap, auc, fp[-1], conf]

    # bincount's length is max(minlength, largest value + 1): data, read in one
    # barrier (its min and max) while the counting stays lazy (797d367)
    same_without_fallback(program, rtol=1e-4, atol=1e-5)


@pytest.mark.slow  # over 2 s of CPU, mostly XLA's compile of its backward
def test_triplet_losses_with_swap_and_a_custom_distance():
    def program(dev):
        net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4)).to(dev)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        anchor, positive, negative = (torch.randn(3, 16, 6).to(dev) for _ in range(3))
        cos = nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.3)
        out, first = [], None
        for step in range(3):
            a, p, n = net(anchor[step]), net(positive[step]), net(negative[step])
            loss = (F.triplet_margin_loss(a, p, n, margin=1.0, p=1.5, swap=True)
                    + cos(a, p, n)
                    + F.margin_ranking_loss((a - n).norm(dim=1), (a - p).norm(dim=1),
                                            torch.ones(16, device=dev), margin=0.5))
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        return out + [net[2].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_linalg_qr_is_lowered_with_torchs_signs_modes_gradient_and_errors():
    start = fallbacks()
    for shape, mode, dtype in [((5, 3), "reduced", torch.float32),
                               ((3, 5), "complete", torch.float64),
                               ((2, 4, 4), "r", torch.complex64)]:
        a = torch.randn(*shape, dtype=dtype)
        expected, got = torch.linalg.qr(a, mode=mode), torch.linalg.qr(a.to(DEV), mode=mode)
        for e, g in zip(expected, got, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape
            torch.testing.assert_close(g.cpu(), e)
    a = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    lazy_a = a.detach().to(DEV).requires_grad_()
    for x in (a, lazy_a):
        q, r = torch.linalg.qr(x)
        (q.sin().sum() + r.square().sum()).backward()
    torch.testing.assert_close(lazy_a.grad.cpu(), a.grad)
    assert fallbacks() == start
    for bad, mode in [(torch.ones(3), "reduced"), (torch.ones(3, 3, dtype=torch.long), "r"),
                      (torch.ones(3, 3), "full")]:
        with pytest.raises(RuntimeError) as eager:
            torch.linalg.qr(bad, mode=mode)
        with pytest.raises(RuntimeError, match=eager.value.args[0].replace("(", r"\(")
                           .replace(")", r"\)")):
            torch.linalg.qr(bad.to(DEV), mode=mode)


def test_mean_losses_of_column_slices_reduce_to_a_contiguous_scalar():
    def program(dev):
        x = torch.randn(8, 5).to(dev)
        pred, target = x[:, :1].sin(), x[:, 1:2].t().t()
        prob = torch.rand(8, 5).to(dev)[:, 2:3]
        return [F.mse_loss(pred, target), F.l1_loss(pred, target),
                F.smooth_l1_loss(pred, target, beta=0.3), F.huber_loss(pred, target),
                F.soft_margin_loss(pred, target.sign()), F.binary_cross_entropy(prob, prob.t().t()),
                F.mse_loss(pred, target, reduction="none").stride(),
                F.mse_loss(pred, target, reduction="sum")]

    same_without_fallback(program)


def test_orthogonal_parametrization_of_a_non_square_layer_uses_lowered_householder_products():
    """P.orthogonal's default map for a non-square weight is Householder
    (torch.linalg.householder_product, LAPACK's orgqr): lowered, with its
    gradient, so the training loop neither falls back nor recompiles."""
    from torch.nn.utils.parametrizations import orthogonal

    def program(dev):
        enc = orthogonal(nn.Linear(6, 3)).to(dev)
        head = nn.Linear(3, 2).to(dev)
        opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.1)
        x, y = torch.randn(16, 6).to(dev), torch.randn(16, 2).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.mse_loss(head(torch.tanh(enc(x))), y)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        w = enc.weight
        return out + [w, w @ w.T, enc.parametrizations.weight.original.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_householder_product_raises_as_torch():
    cases = [(torch.ones(3), torch.ones(1)), (torch.ones(2, 3), torch.ones(1)),
             (torch.ones(3, 2), torch.ones(3)), (torch.ones(3, 2), torch.ones(2, 1)),
             (torch.ones(3, 2), torch.ones(1, dtype=torch.float64)),
             (torch.ones(3, 2, dtype=torch.long), torch.ones(1, dtype=torch.long)),
             (torch.ones(2, 3, 2), torch.ones(3, 1))]
    for a, tau in cases:
        with pytest.raises((RuntimeError, NotImplementedError)) as eager:
            torch.linalg.householder_product(a, tau)
        with pytest.raises(eager.type) as lazy:
            torch.linalg.householder_product(a.to(DEV), tau.to(DEV))
        assert str(lazy.value) == str(eager.value)
    a, tau = torch.randn(2, 4, 4, dtype=torch.complex64), torch.randn(2, 3, dtype=torch.complex64)
    got = torch.linalg.householder_product(a.to(DEV), tau.to(DEV))
    torch.testing.assert_close(got.cpu(), torch.linalg.householder_product(a, tau))
