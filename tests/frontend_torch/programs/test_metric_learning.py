"""Metric and contrastive learning programs: triplet and margin losses, siamese
networks, CLIP/MoCo/Barlow-style objectives, ranking and recommendation,
prototypes, nearest neighbours. Each program is written as a PyTorch user
writes it, run eagerly on the CPU and lazily on
``lazytensor.torch.device()`` from the same seed, and compared (values,
dtypes, shapes; see ``programs.py``); training programs also check that
later steps compile nothing new."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ..lazy_vs_eager import (
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
)


class MoCoHead(nn.Module):
    def __init__(self, dim=8, queue=32):
        super().__init__()
        self.q_enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, dim))
        self.k_enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, dim))
        self.k_enc.load_state_dict(self.q_enc.state_dict())
        for p in self.k_enc.parameters():
            p.requires_grad_(False)
        self.register_buffer("queue", F.normalize(torch.randn(queue, dim), dim=1))
        self.register_buffer("ptr", torch.zeros((), dtype=torch.long))
        self.register_buffer("scratch", torch.zeros(dim), persistent=False)

    @torch.no_grad()
    def momentum_update(self, m=0.9):
        qs, ks = list(self.q_enc.parameters()), list(self.k_enc.parameters())
        torch._foreach_mul_(ks, m)
        torch._foreach_add_(ks, qs, alpha=1 - m)

    @torch.no_grad()
    def enqueue(self, keys, start):
        self.queue[start:start + keys.shape[0]] = keys
        self.ptr.fill_((start + keys.shape[0]) % self.queue.shape[0])


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


def test_clip_style_contrastive_loss_with_learned_temperature():
    def program(dev):
        img_enc = nn.Sequential(nn.Linear(10, 16), nn.GELU(), nn.Linear(16, 8)).to(dev)
        txt_enc = nn.Sequential(nn.Embedding(30, 8), nn.Flatten(), nn.Linear(24, 8)).to(dev)
        logit_scale = nn.Parameter(torch.tensor(2.0).log().to(dev))
        opt = torch.optim.AdamW(list(img_enc.parameters()) + list(txt_enc.parameters())
                                + [logit_scale], lr=1e-2, weight_decay=0.05)
        images, texts = torch.randn(6, 10).to(dev), torch.randint(0, 30, (6, 3)).to(dev)
        labels = torch.arange(6, device=dev)
        out = []
        for _ in range(3):
            a = F.normalize(img_enc(images), dim=-1)
            b = F.normalize(txt_enc(texts), p=2, dim=1)
            logits = logit_scale.exp().clamp(max=100) * a @ b.t()
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (logits.argmax(1) == labels).float().mean()
            out += [loss.detach(), acc, logit_scale.detach().clone()]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_siamese_metric_learning_with_cosine_embedding_and_margin_ranking_losses():
    def program(dev):
        net = nn.Sequential(nn.Linear(10, 16), nn.PReLU(), nn.Linear(16, 6)).to(dev)
        opt = torch.optim.Adamax(net.parameters(), lr=5e-3)
        cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
        rank_loss = nn.MarginRankingLoss(margin=0.5)
        trip = nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.3)
        a, b, c = (torch.randn(4, 12, 10).to(dev) for _ in range(3))
        same = (torch.randint(0, 2, (4, 12)) * 2 - 1).float().to(dev)
        out, first = [], None
        for step in range(4):
            ea, eb, ec = net(a[step]), net(b[step]), net(c[step])
            d_ab = F.pairwise_distance(ea, eb)
            d_ac = F.pairwise_distance(ea, ec, p=1.0)
            loss = (cos_loss(ea, eb, same[step]) + rank_loss(d_ac, d_ab, same[step])
                    + trip(ea, eb, ec))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step_mark(dev)
            out += [loss.detach(), d_ab.detach()]
            if step >= 2:
                first = steady(dev, first)
        sims = F.cosine_similarity(ea.unsqueeze(1), eb.unsqueeze(0), dim=-1)
        return out + [sims.detach(), net[1].weight.detach()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_moco_momentum_encoder_and_queue_buffers_with_info_nce():
    def program(dev):
        model = MoCoHead().to(dev)
        opt = torch.optim.SGD(model.q_enc.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
        views = torch.randn(4, 2, 8, 12).to(dev)
        out, first, start = [], None, 0
        for step in range(4):
            q = F.normalize(model.q_enc(views[step, 0]), dim=1)
            with torch.no_grad():
                model.momentum_update()
                k = F.normalize(model.k_enc(views[step, 1]), dim=1)
            pos = (q * k).sum(1, keepdim=True)
            neg = q @ model.queue.clone().detach().T
            logits = torch.cat([pos, neg], dim=1) / 0.07
            loss = F.cross_entropy(logits, torch.zeros(8, dtype=torch.long, device=dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.enqueue(k, start)
            start = (start + 8) % 32
            step_mark(dev)
            out.append(loss.detach())
            if step >= 2:
                first = steady(dev, first)
        keys = sorted(model.state_dict())
        return out + [model.queue, model.ptr, keys, model.k_enc[0].weight]

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


# slow: 10 s on a loaded 2-core machine (XLA compiles); keeps CI near 10 minutes
@pytest.mark.slow
def test_barlow_twins_cross_correlation_with_the_off_diagonal_view_trick():
    def off_diagonal(m):
        n = m.shape[0]
        return m.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

    def program(dev):
        backbone = nn.Sequential(nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU()).to(dev)
        projector = nn.Sequential(nn.Linear(16, 8, bias=False), nn.BatchNorm1d(8),
                                  nn.ReLU(), nn.Linear(8, 8, bias=False)).to(dev)
        bn = nn.BatchNorm1d(8, affine=False).to(dev)
        opt = torch.optim.SGD([*backbone.parameters(), *projector.parameters()], lr=0.05,
                              momentum=0.9, weight_decay=1e-4)
        x = torch.randn(3, 12, 10)
        views = torch.stack([x + 0.1 * torch.randn_like(x), x * 0.9]).to(dev)
        out, first = [], None
        for step in range(3):
            z1 = projector(backbone(views[0, step]))
            z2 = projector(backbone(views[1, step]))
            c = bn(z1).T @ bn(z2) / z1.shape[0]
            on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
            off_diag = off_diagonal(c).pow_(2).sum()
            loss = on_diag + 5e-3 * off_diag
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            step_mark(dev)
        return out + [c.detach(), bn.running_mean, projector[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-4)


def test_prototypical_network_episodes_with_squared_cdist_logits():
    def program(dev):
        # no last bias: distances ignore it, its gradient is rounding noise Adam would amplify
        encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 8, bias=False)).to(dev)
        opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
        ways, shots, queries = 3, 2, 4
        support = torch.randn(3, ways, shots, 12).to(dev)
        query = torch.randn(3, ways, queries, 12).to(dev)
        labels = torch.arange(ways, device=dev).repeat_interleave(queries)
        out, first = [], None
        for step in range(3):
            protos = encoder(support[step].reshape(-1, 12)).view(ways, shots, -1).mean(1)
            q = encoder(query[step].reshape(-1, 12))
            logits = -torch.cdist(q, protos).pow(2)
            loss = F.cross_entropy(logits, labels)
            acc = (logits.argmax(1) == labels).float().mean()
            first = train_step(opt, loss, dev, out, step, first, settled=1)
            out.append(acc)
        return out + [protos.detach(), encoder[0].weight.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_poincare_embeddings_with_a_riemannian_sgd_step_under_no_grad():
    def distance(u, v, eps=1e-5):
        sq = ((u - v) ** 2).sum(-1)
        alpha = (1 - (u ** 2).sum(-1)).clamp(min=eps)
        beta = (1 - (v ** 2).sum(-1)).clamp(min=eps)
        return torch.acosh(1 + 2 * sq / (alpha * beta))

    def program(dev):
        emb = nn.Embedding(10, 2).to(dev)
        with torch.no_grad():
            emb.weight.mul_(1e-3)
        edges = torch.tensor([[0, 1], [0, 2], [1, 3], [1, 4], [2, 5], [2, 6]]).to(dev)
        negatives = torch.randint(0, 10, (3, 6, 4)).to(dev)
        out = []
        for step in range(3):
            u = emb(edges[:, 0])
            cands = torch.cat([edges[:, 1:], negatives[step]], dim=1)
            d = distance(u[:, None], emb(cands))
            loss = F.cross_entropy(-d, torch.zeros(6, dtype=torch.long, device=dev))
            emb.zero_grad()
            loss.backward()
            with torch.no_grad():
                w = emb.weight
                scale = ((1 - w.pow(2).sum(-1, keepdim=True)) ** 2) / 4
                w.sub_(0.5 * scale * w.grad)
                norm = w.norm(dim=-1, keepdim=True)
                w.copy_(torch.where(norm >= 1, w / norm * (1 - 1e-5), w))
            step_mark(dev)
            out.append(loss.detach())
        return out + [emb.weight, d]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_contrastive_nt_xent_loss_with_diagonal_mask():
    def program(dev):
        enc = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4)).to(dev)
        opt = torch.optim.AdamW(enc.parameters(), lr=1e-2, weight_decay=0.1)
        x = torch.randn(6, 6)
        views = torch.cat([x + 0.1 * torch.randn(6, 6), x * 0.9]).to(dev)
        losses = []
        for _ in range(2):
            z = F.normalize(enc(views), dim=1)
            sim = z @ z.T / 0.5
            sim = sim.masked_fill(torch.eye(12, dtype=torch.bool, device=dev), float("-inf"))
            target = torch.arange(12, device=dev).roll(6)
            loss = F.cross_entropy(sim, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        acc = (sim.argmax(1) == target).float().mean()
        return {"losses": losses, "acc": acc, "w": enc[0].weight, "rm": enc[1].running_var}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_focal_loss_and_hard_negative_triplet_mining():
    def program(dev):
        logits = torch.randn(6, 4).to(dev).requires_grad_()
        target = torch.tensor([0, 3, 1, 1, 2, 0]).to(dev)
        alpha = torch.tensor([0.25, 0.5, 0.75, 1.0]).to(dev)
        logp = logits.log_softmax(-1).gather(1, target[:, None]).squeeze(1)
        p = logp.exp()
        focal = (-alpha[target] * (1 - p).pow(2.0) * logp).mean()
        emb = F.normalize(torch.randn(6, 3).to(dev).requires_grad_(), dim=-1)
        dist = torch.cdist(emb, emb)
        same = target[:, None] == target[None]
        hardest_pos = (dist * same.float()).max(1).values
        hardest_neg = dist.masked_fill(same, float("inf")).min(1).values
        triplet = F.relu(hardest_pos - hardest_neg + 0.3).mean()
        (focal + triplet).backward()
        return {"focal": focal, "triplet": triplet, "grad": logits.grad,
                "tml": F.triplet_margin_loss(emb[:2], emb[2:4], emb[4:], swap=True)}

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_knn_classifier_with_cdist_topk_and_votes():
    def program(dev):
        train = torch.randn(50, 6).to(dev)
        labels = torch.randint(0, 4, (50,)).to(dev)
        query = torch.randn(9, 6).to(dev)
        d = torch.cdist(query, train)
        dist, idx = d.topk(5, largest=False)
        votes = labels[idx]
        pred = torch.mode(votes, dim=1).values
        onehot = F.one_hot(votes, 4).float()
        weighted = (onehot / (dist.unsqueeze(-1) + 1e-6)).sum(1).argmax(1)
        d2 = torch.cdist(query, train, p=1.0)
        dinf = torch.cdist(query, train, p=float("inf"))
        return [dist, idx, pred, weighted, d2.min(1), dinf.argmin(1)]

    same_on_both(program)
