"""Ordinary PyTorch programs, round eleven (metric learning, meta-learning,
mixture density networks, ranking, patches and time series: triplet loss
with hard negatives over cdist, a MAML inner loop with torch.func.grad and
functional_call, a mixture density network's MixtureSameFamily
likelihood, RankNet over torch.combinations pairs, patch denoising with
nn.Unfold/nn.Fold, asset returns with diff/cov/corrcoef/kthvalue, a
tanh RNN language model over padded sequences, a multi-task head with
Huber/PoissonNLL/MultiLabelSoftMargin losses and ReduceLROnPlateau, a
sharpness-aware (SAM) step through parameters_to_vector) run eagerly on
the CPU and lazily from the same seed and compared (values, dtypes,
shapes; see ``lazy_vs_eager.py``); none may fall back."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical, Independent, MixtureSameFamily, Normal
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from .lazy_vs_eager import same_without_fallback


def test_triplet_margin_metric_learning_with_hard_negatives_from_cdist():
    x, labels = torch.randn(24, 8), torch.arange(24) % 4

    def program(dev):
        torch.manual_seed(1)
        net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        loss_fn = nn.TripletMarginLoss(margin=0.5, p=2)
        pdist = nn.PairwiseDistance(p=2)
        xs, ys = x.to(dev), labels.to(dev)
        out = []
        for _ in range(3):
            emb = F.normalize(net(xs), dim=1)
            d = torch.cdist(emb, emb)
            same = ys[:, None] == ys[None, :]
            eye = torch.eye(len(ys), dtype=torch.bool, device=dev)
            pos = d.masked_fill(~same | eye, -1.0).argmax(1)  # hardest positive
            neg = d.masked_fill(same, float("inf")).argmin(1)  # hardest negative
            loss = loss_fn(emb, emb[pos], emb[neg])
            opt.zero_grad()
            loss.backward()
            opt.step()
            gap = (pdist(emb, emb[neg]) - pdist(emb, emb[pos])).detach()
            out += [loss.item(), gap, (gap > 0).float().mean()]
        return out

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# second-order gradients through two unrolled inner steps per task: one
# large graph that compiles for ~9 s on a CI worker
@pytest.mark.slow
def test_maml_inner_loop_with_func_grad_and_functional_call():
    tasks = [(torch.randn(10, 1) * 2, torch.rand(1) * 3, torch.rand(1) * 3) for _ in range(2)]

    def program(dev):
        torch.manual_seed(2)
        model = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1)).to(dev)
        meta_opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        params = dict(model.named_parameters())

        def task_loss(p, xs, ys):
            return F.mse_loss(torch.func.functional_call(model, p, (xs,)), ys)

        out = []
        for _epoch in range(2):
            meta_loss = 0.0
            for xs, amp, phase in tasks:
                xs = xs.to(dev)
                ys = amp.to(dev) * torch.sin(xs + phase.to(dev))
                fast = params
                for _ in range(2):  # inner SGD steps, differentiable
                    grads = torch.func.grad(task_loss)(fast, xs[:5], ys[:5])
                    fast = {k: v - 0.1 * grads[k] for k, v in fast.items()}
                meta_loss = meta_loss + task_loss(fast, xs[5:], ys[5:])
            meta_opt.zero_grad()
            meta_loss.backward()
            meta_opt.step()
            out += [meta_loss.item(), model[0].weight.grad.clone()]
        return out + [model[2].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_mixture_density_network_with_mixture_same_family_log_prob():
    x = torch.linspace(-1, 1, 32).unsqueeze(1)
    y = torch.sin(3 * x) + 0.1 * torch.randn(32, 1)

    class MDN(nn.Module):
        def __init__(self, k=3):
            super().__init__()
            self.k = k
            self.body = nn.Sequential(nn.Linear(1, 24), nn.Tanh())
            self.head = nn.Linear(24, 3 * k)

        def forward(self, x):
            logits, mu, log_sigma = self.head(self.body(x)).chunk(3, dim=-1)
            comp = Independent(Normal(mu.unsqueeze(-1), log_sigma.exp().unsqueeze(-1)), 1)
            return MixtureSameFamily(Categorical(logits=logits), comp)

    def program(dev):
        torch.manual_seed(3)
        model = MDN().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)
        xs, ys = x.to(dev), y.to(dev)
        out = []
        for _ in range(3):
            dist = model(xs)
            nll = -dist.log_prob(ys).mean()
            opt.zero_grad()
            nll.backward()
            opt.step()
            out.append(nll.item())
        with torch.no_grad():
            dist = model(xs)
            out += [dist.mean, dist.variance, dist.mixture_distribution.entropy(),
                    dist.component_distribution.base_dist.scale]
        return out

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_ranknet_over_all_pairs_from_torch_combinations():
    docs, relevance = torch.randn(8, 6), torch.tensor([3, 0, 2, 1, 3, 0, 1, 2]).float()

    def program(dev):
        torch.manual_seed(4)
        scorer = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1)).to(dev)
        opt = torch.optim.Adam(scorer.parameters(), lr=1e-2)
        rank_loss = nn.MarginRankingLoss(margin=0.2)
        xs, rel = docs.to(dev), relevance.to(dev)
        pairs = torch.combinations(torch.arange(8, device=dev), r=2)
        i, j = pairs.unbind(1)
        keep = rel[i] != rel[j]
        out = []
        for _ in range(3):
            s = scorer(xs).squeeze(1)
            target = torch.sign(rel[i] - rel[j])
            margin = rank_loss(s[i], s[j], target)
            p_ij = torch.sigmoid(s[i] - s[j])
            ranknet = F.binary_cross_entropy(p_ij[keep], (target[keep] > 0).float())
            loss = margin + ranknet
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.detach())
        order = scorer(xs).squeeze(1).argsort(descending=True)
        gains = (2 ** rel[order] - 1) / torch.log2(torch.arange(2, 10, device=dev).float())
        ideal = (2 ** rel.sort(descending=True).values - 1) / torch.log2(
            torch.arange(2, 10, device=dev).float())
        return out + [pairs, order, gains.sum() / ideal.sum()]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_patch_denoising_with_unfold_and_fold_overlap_average():
    clean = torch.linspace(0, 1, 16 * 16).view(1, 1, 16, 16).repeat(2, 1, 1, 1)
    noisy = clean + 0.1 * torch.randn(2, 1, 16, 16)

    def program(dev):
        torch.manual_seed(5)
        unfold = nn.Unfold(kernel_size=4, stride=2)
        fold = nn.Fold(output_size=(16, 16), kernel_size=4, stride=2)
        denoise = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 16)).to(dev)
        opt = torch.optim.Adam(denoise.parameters(), lr=1e-2)
        x, target = noisy.to(dev), clean.to(dev)
        weight = fold(unfold(torch.ones_like(x)))  # how many patches cover each pixel
        out = [weight]
        for _ in range(3):
            patches = unfold(x).transpose(1, 2)  # (B, L, 16)
            restored = denoise(patches).transpose(1, 2)
            image = fold(restored) / weight
            loss = F.mse_loss(image, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        psnr = 10 * torch.log10(1 / F.mse_loss(image.detach(), target))
        return out + [image.detach(), psnr]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_asset_returns_with_diff_cov_corrcoef_kthvalue_and_take_along_dim():
    prices = 100 * torch.exp(torch.cumsum(0.01 * torch.randn(60, 5), dim=0)).double()

    def program(dev):
        p = prices.to(dev)
        log_ret = torch.diff(torch.log(p), dim=0)
        simple = torch.diff(p, dim=0, prepend=p[:1]) / p
        cov = torch.cov(log_ret.T)
        corr = torch.corrcoef(log_ret.T)
        weights = torch.linalg.solve(cov, torch.ones(5, dtype=p.dtype, device=dev))
        weights = weights / weights.sum()  # minimum-variance portfolio
        port = log_ret @ weights
        median, where = torch.kthvalue(log_ret, 30, dim=0)
        best = torch.topk(log_ret, 3, dim=0).indices
        best_ret = torch.take_along_dim(log_ret, best, dim=0)
        drawdown = p / torch.cummax(p, dim=0).values - 1
        window = log_ret.unfold(0, 10, 5).std(dim=-1)  # rolling volatility
        sharpe = port.mean() / port.std() * (252 ** 0.5)
        return [cov, corr, weights, median, where, best_ret, drawdown.min(0).values,
                window, simple, f"{sharpe.item():.6f}"]

    same_without_fallback(program, rtol=1e-7, atol=1e-9)


# slow: 17 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_tanh_rnn_language_model_over_padded_sequences_and_row_iteration():
    vocab = 12
    seqs = [torch.randint(1, vocab, (n,)) for n in (7, 4, 6, 3)]

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, 8, padding_idx=0)
            self.rnn = nn.RNN(8, 16, num_layers=2, batch_first=True, nonlinearity="tanh")
            self.out = nn.Linear(16, vocab)

        def forward(self, x, h=None):
            y, h = self.rnn(self.embed(x), h)
            return self.out(y), h

    def program(dev):
        torch.manual_seed(6)
        model = CharRNN().to(dev)
        opt = torch.optim.RMSprop(model.parameters(), lr=3e-3)
        batch = nn.utils.rnn.pad_sequence(seqs, batch_first=True).to(dev)
        inputs, targets = batch[:, :-1], batch[:, 1:]
        out = []
        for _ in range(3):
            logits, _ = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1), ignore_index=0)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            out.append(f"loss {loss.item():.5f}")
        with torch.no_grad():
            logits, h = model(inputs[:, :1])
            token, text = logits[:, -1].argmax(-1, keepdim=True), []
            for _ in range(4):  # greedy decoding, one token at a time
                logits, h = model(token, h)
                token = logits[:, -1].argmax(-1, keepdim=True)
                text.append(token)
            text = torch.cat(text, dim=1)
        rows = [row.tolist() for row in text]  # iterating a tensor's rows
        return out + [rows, len(text), h, model.embed.weight[0]]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_multitask_head_with_huber_poisson_multilabel_losses_and_plateau_scheduler():
    x = torch.randn(32, 10)
    reg, counts = torch.randn(32, 1) * 3, torch.poisson(torch.full((32, 1), 2.0))
    tags = (torch.rand(32, 5) < 0.3).float()

    def program(dev):
        torch.manual_seed(7)
        trunk = nn.Sequential(nn.Linear(10, 32), nn.GELU()).to(dev)
        heads = nn.ModuleDict({"reg": nn.Linear(32, 1), "count": nn.Linear(32, 1),
                               "tags": nn.Linear(32, 5)}).to(dev)
        params = list(trunk.parameters()) + list(heads.parameters())
        opt = torch.optim.Adagrad(params, lr=0.05)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
        losses = {"reg": nn.HuberLoss(delta=1.0), "count": nn.PoissonNLLLoss(log_input=True),
                  "tags": nn.MultiLabelSoftMarginLoss()}
        targets = {"reg": reg.to(dev), "count": counts.to(dev), "tags": tags.to(dev)}
        xs, out = x.to(dev), []
        for epoch in range(4):
            h = trunk(xs)
            parts = {k: losses[k](heads[k](h), targets[k]) for k in heads}
            total = sum(parts.values())
            opt.zero_grad()
            total.backward()
            opt.step()
            sched.step(total.item() if epoch != 2 else 1e9)  # a bad epoch: the LR halves
            out += [{k: v.item() for k, v in parts.items()}, opt.param_groups[0]["lr"]]
        return out + [heads["tags"].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_sharpness_aware_minimization_step_through_parameter_vectors():
    x, y = torch.randn(40, 6), torch.randint(0, 3, (40,))

    def program(dev):
        torch.manual_seed(8)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        xs, ys, rho, out = x.to(dev), y.to(dev), 0.05, []
        for _ in range(3):
            F.cross_entropy(model(xs), ys).backward()
            w = parameters_to_vector(model.parameters()).detach()
            g = parameters_to_vector(p.grad for p in model.parameters())
            eps = rho * g / (g.norm() + 1e-12)
            vector_to_parameters(w + eps, model.parameters())  # climb to the sharp point
            opt.zero_grad()
            sharp = F.cross_entropy(model(xs), ys)
            sharp.backward()
            with torch.no_grad():
                vector_to_parameters(w, model.parameters())  # back, keep the sharp grads
            opt.step()
            opt.zero_grad()
            out += [sharp.item(), eps.norm()]
        return out + [parameters_to_vector(model.parameters())]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


# Conv3d's backward and trilinear upsampling compile for ~10 s on a CI worker
@pytest.mark.slow
def test_volume_segmentation_with_conv3d_groupnorm_trilinear_upsampling_and_dice():
    vol = torch.randn(2, 1, 8, 8, 8)
    mask = (vol.cumsum(2) > 0).float()

    class Seg3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.GroupNorm(4, 8), nn.SiLU(),
                                      nn.Conv3d(8, 8, 3, stride=2, padding=1))
            self.skip = nn.Conv3d(1, 8, 1)
            self.head = nn.Conv3d(8, 1, 1)

        def forward(self, x):
            up = F.interpolate(self.down(x), scale_factor=2, mode="trilinear",
                               align_corners=False)
            return self.head(F.silu(up + self.skip(x)))

    def program(dev):
        torch.manual_seed(9)
        model = Seg3d().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
        bce = nn.BCELoss()
        x, y, out = vol.to(dev), mask.to(dev), []
        for _ in range(3):
            prob = torch.sigmoid(model(x))
            inter = (prob * y).sum(dim=(2, 3, 4))
            dice = 1 - (2 * inter + 1) / (prob.sum(dim=(2, 3, 4)) + y.sum(dim=(2, 3, 4)) + 1)
            loss = bce(prob, y) + dice.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out + [prob.detach(), model.down[1].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_siamese_pairs_with_cosine_similarity_and_embedding_losses():
    a, b = torch.randn(16, 12), torch.randn(16, 12)
    same = torch.where(torch.rand(16) < 0.5, 1.0, -1.0)
    score = torch.rand(16)

    def program(dev):
        torch.manual_seed(10)
        tower = nn.Sequential(nn.Linear(12, 16), nn.LogSigmoid(), nn.Linear(16, 8)).to(dev)
        cos = nn.CosineSimilarity(dim=1)
        losses = [nn.CosineEmbeddingLoss(margin=0.2), nn.SmoothL1Loss(beta=0.5), nn.L1Loss()]
        opt = torch.optim.SGD(tower.parameters(), lr=0.05, nesterov=True, momentum=0.9)
        xa, xb, y, s, out = a.to(dev), b.to(dev), same.to(dev), score.to(dev), []
        for _ in range(3):
            ea, eb = tower(xa), tower(xb)
            sim = cos(ea, eb)
            loss = losses[0](ea, eb, y) + losses[1](sim, s) + 0.1 * losses[2](ea, eb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), sim.detach()]
        soft = F.softmin(torch.cdist(ea, eb), dim=1).detach()
        return out + [soft, F.threshold(sim.detach(), 0.1, -1.0)]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


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


# slow: 17 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_baddbmm_attention_with_pixel_unshuffle_tokens_and_relative_bias():
    img = torch.randn(2, 3, 8, 8)

    class TinyViT(nn.Module):
        def __init__(self, dim=12, heads=2):
            super().__init__()
            self.heads, self.scale = heads, (dim // heads) ** -0.5
            self.to_tokens = nn.Sequential(nn.PixelUnshuffle(2), nn.Conv2d(12, dim, 1))
            self.qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.bias = nn.Parameter(torch.zeros(heads, 16, 16))
            self.proj = nn.Linear(dim, dim)
            self.norm = nn.LayerNorm(dim, elementwise_affine=False)

        def forward(self, x):
            t = self.to_tokens(x).flatten(2).transpose(1, 2)  # (B, 16, dim)
            b, n, d = t.shape
            q, k, v = self.qkv(self.norm(t)).chunk(3, dim=-1)
            split = lambda z: z.view(b, n, self.heads, -1).transpose(1, 2).reshape(  # noqa: E731
                b * self.heads, n, -1)
            q, k, v = split(q), split(k), split(v)
            bias = self.bias.repeat(b, 1, 1)
            att = torch.baddbmm(bias, q, k.transpose(1, 2), alpha=self.scale).softmax(-1)
            y = torch.bmm(att, v).view(b, self.heads, n, -1).transpose(1, 2).reshape(b, n, d)
            return t + self.proj(y), att

    def program(dev):
        torch.manual_seed(12)
        model = TinyViT().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x, out = img.to(dev), []
        for _ in range(2):
            y, att = model(x)
            loss = y.pow(2).mean() + 0.1 * (att * att.clamp_min(1e-9).log()).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out + [att.detach(), model.bias.grad, model.to_tokens[1].weight]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)
