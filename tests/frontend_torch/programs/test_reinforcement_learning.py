"""Reinforcement-learning programs: REINFORCE, DQN, PPO, actor-critic and
policy distributions. Each program is written as a PyTorch user writes it,
run eagerly on the CPU and lazily on ``lazytensor.torch.device()`` from the
same seed, and compared (values, dtypes, shapes; see ``programs.py``);
training programs also check that later steps compile nothing new."""


from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical, Normal, kl_divergence

from ..conftest import DEV
from ..lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_without_fallback,
    steady,
    step_mark,
    train_step,
)


def test_policy_gradient_with_categorical_sampling():
    from torch.distributions import Categorical

    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
    lazy_policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).to(DEV)
    lazy_policy.load_state_dict(policy.state_dict())
    states = torch.randn(64, 4)
    torch.manual_seed(1)
    actions = Categorical(logits=lazy_policy(states.to(DEV))).sample()
    torch.manual_seed(1)
    again = Categorical(logits=lazy_policy(states.to(DEV))).sample()
    assert actions.dtype == torch.int64 and actions.shape == (64,)
    assert torch.equal(actions.cpu(), again.cpu())  # same seed, same actions
    assert fallbacks() == 0  # multinomial is lowered

    def program(dev):
        model = policy if dev.type == "cpu" else lazy_policy
        dist = Categorical(logits=model(states.to(dev)))
        returns = torch.linspace(1.0, -1.0, 64).to(dev)
        loss = -(dist.log_prob(actions.to(dev)) * returns).mean() - 0.01 * dist.entropy().mean()
        loss.backward()
        return {"loss": loss, "grads": [p.grad for p in model.parameters()]}

    same_on_both(program)
    torch.manual_seed(2)
    probs = torch.tensor([0.1, 0.0, 0.6, 0.3], device=DEV)
    draws = torch.multinomial(probs.expand(4000, 4), 1, replacement=True).cpu().flatten()
    freq = torch.bincount(draws, minlength=4) / 4000
    torch.testing.assert_close(freq, torch.tensor([0.1, 0.0, 0.6, 0.3]), atol=0.04, rtol=0)
    assert sorted(torch.multinomial(probs, 3).tolist()) == [0, 2, 3]


def test_reinforce_with_normal_policy_discounted_returns_and_entropy_bonus():
    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 32), nn.Tanh())
            self.mu = nn.Linear(32, 2)
            self.log_std = nn.Parameter(torch.zeros(2))

        def forward(self, s):
            h = self.body(s)
            return torch.distributions.Normal(self.mu(h), self.log_std.exp())

    def program(dev):
        policy = Policy().to(dev)
        opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
        gamma, out = 0.9, []
        # the exploration noise comes from the CPU (lazy draws differ from eager's)
        noise = torch.randn(2, 6, 2).to(dev)
        for episode in range(2):
            state = torch.randn(3).to(dev)
            log_probs, rewards, entropies = [], [], []
            for t in range(6):
                dist = policy(state)
                action = (dist.mean + dist.stddev * noise[episode, t]).detach()
                log_probs.append(dist.log_prob(action).sum())
                entropies.append(dist.entropy().sum())
                rewards.append(-(action ** 2).sum().item())
                state = torch.cat([state[1:], action[:1]]).detach()
            returns, g = [], 0.0
            for r in reversed(rewards):
                g = r + gamma * g
                returns.insert(0, g)
            returns = torch.tensor(returns, device=dev)
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = -(torch.stack(log_probs) * returns).sum() - 0.01 * torch.stack(entropies).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.detach(), returns, sum(rewards)]
        return out + [p.detach() for p in policy.parameters()]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_dqn_with_target_network_gather_and_replay_indices():
    def program(dev):
        q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3)).to(dev)
        target = copy.deepcopy(q_net)
        opt = torch.optim.Adam(q_net.parameters(), lr=1e-3)
        n = 64
        states, next_states = torch.randn(n, 4).to(dev), torch.randn(n, 4).to(dev)
        actions, rewards = torch.randint(0, 3, (n,)).to(dev), torch.randn(n).to(dev)
        dones = (torch.rand(n) < 0.2).to(dev)
        batches = torch.randint(0, n, (6, 16))
        out, first = [], None
        for step, idx in enumerate(batches):
            idx = idx.to(dev)
            q = q_net(states[idx]).gather(1, actions[idx].unsqueeze(1)).squeeze(1)
            with torch.no_grad():
                next_q = target(next_states[idx]).max(1)[0]
                expected = rewards[idx] + 0.99 * next_q * (1 - dones[idx].float())
            loss = F.smooth_l1_loss(q, expected)
            opt.zero_grad()
            loss.backward()
            for p in q_net.parameters():
                p.grad.data.clamp_(-1, 1)
            opt.step()
            if step % 3 == 2:
                target.load_state_dict(q_net.state_dict())
            step_mark(dev)
            out.append(loss.detach())
            if step >= 3:
                first = steady(dev, first)
        greedy = q_net(states[:8]).argmax(dim=1)
        return out + [greedy, [p.detach() for p in target.parameters()]]

    same_on_both(program, rtol=1e-4, atol=1e-5)


def test_ppo_clipped_objective_with_gae_written_element_by_element():
    def program(dev):
        actor = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 4)).to(dev)
        critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)).to(dev)
        opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-3, eps=1e-5)
        T = 8
        obs, rewards = torch.randn(T + 1, 3).to(dev), torch.randn(T).to(dev)
        actions, dones = torch.randint(0, 4, (T,)).to(dev), torch.zeros(T, device=dev)
        dones[4] = 1.0
        with torch.no_grad():
            values = critic(obs).squeeze(-1)
            old_logp = torch.distributions.Categorical(logits=actor(obs[:T])).log_prob(actions)
        adv = torch.zeros(T, device=dev)
        last = 0
        for t in reversed(range(T)):
            nonterminal = 1.0 - dones[t]
            delta = rewards[t] + 0.99 * values[t + 1] * nonterminal - values[t]
            last = delta + 0.99 * 0.95 * nonterminal * last
            adv[t] = last
        returns = adv + values[:T]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        out = [adv, returns]
        for _ in range(3):
            dist = torch.distributions.Categorical(logits=actor(obs[:T]))
            ratio = (dist.log_prob(actions) - old_logp).exp()
            surr = torch.min(ratio * adv, torch.clamp(ratio, 0.8, 1.2) * adv)
            v_loss = 0.5 * (critic(obs[:T]).squeeze(-1) - returns).pow(2).mean()
            loss = -surr.mean() + 0.5 * v_loss - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
            opt.step()
            clip_frac = ((ratio - 1.0).abs() > 0.2).float().mean()
            out += [loss.detach(), clip_frac, dist.probs.detach()]
        return out

    same_on_both(program, rtol=1e-4, atol=1e-5)


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


def test_tanh_normal_policy_mixture_and_mvn_log_probs():
    from torch.distributions import (
        Categorical,
        Independent,
        MixtureSameFamily,
        MultivariateNormal,
        TransformedDistribution,
    )
    from torch.distributions.transforms import TanhTransform

    def program(dev):
        net = nn.Linear(3, 4).to(dev)
        obs = torch.randn(6, 3).to(dev)
        mu, log_std = net(obs).chunk(2, -1)
        base = Independent(Normal(mu, log_std.exp()), 1)
        pi = TransformedDistribution(base, [TanhTransform(cache_size=1)])
        a = torch.tensor([[0.3, -0.5]]).expand(6, 2).to(dev)
        lp = pi.log_prob(a)
        kl = kl_divergence(Normal(mu, log_std.exp()), Normal(torch.zeros_like(mu), 1.0))
        mix = MixtureSameFamily(Categorical(logits=mu), Normal(log_std, torch.ones_like(mu)))
        cov = torch.tensor([[1.0, 0.3], [0.3, 2.0]]).to(dev)
        mvn = MultivariateNormal(mu, covariance_matrix=cov)
        loss = -(lp.mean() + mix.log_prob(a[:, 0]).mean()) + kl.sum() + mvn.log_prob(a).sum()
        loss.backward()
        return [lp, kl, mix.log_prob(a[:, 0]), mvn.log_prob(a), mvn.entropy(), net.weight.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)
