"""torch.optim's fused kernels (``fused=True``: Adam, AdamW, SGD, Adagrad)
as torch's own CPU kernels compute them, written as lazily recorded tensor
ops: one update per parameter, gradients unscaled in place by
``grad_scale`` (as the kernels do), and no change at all where ``found_inf``
is set. Step counters arrive already incremented (torch.optim increments
them before the call)."""

from __future__ import annotations

from lazytensor.torch.aten._common import aten

import torch


def _unscale(grads, grad_scale) -> None:
    if grad_scale is not None:
        for g in grads:
            g.div_(grad_scale)


def _commit(pairs, found_inf) -> None:
    """old.copy_(new) for each (old, new); a no-op where found_inf is set."""
    for old, new in pairs:
        old.copy_(new if found_inf is None else torch.where(found_inf != 0, old, new))


def _fused_adam(decoupled: bool):
    def impl(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr,
             beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None,
             found_inf=None):
        _unscale(grads, grad_scale)
        for i, (p, g, m, v, step) in enumerate(zip(params, grads, exp_avgs, exp_avg_sqs,
                                                   state_steps, strict=True)):
            g = -g if maximize else g
            if weight_decay and decoupled:
                p_new = p * (1 - lr * weight_decay)
            else:
                p_new = p
                g = g + p * weight_decay if weight_decay else g
            m_new = m.lerp(g, 1 - beta1)
            v_new = v * beta2 + g * g * (1 - beta2)
            seen = torch.maximum(max_exp_avg_sqs[i], v_new) if amsgrad else v_new
            bias2_sqrt = (1 - torch.pow(beta2, step)).sqrt()
            denom = seen.sqrt() / bias2_sqrt + eps
            p_new = p_new - lr / (1 - torch.pow(beta1, step)) * m_new / denom
            pairs = [(p, p_new), (m, m_new), (v, v_new)]
            _commit(pairs + ([(max_exp_avg_sqs[i], seen)] if amsgrad else []), found_inf)

    return impl


def _fused_sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
               nesterov, maximize, is_first_step, grad_scale=None, found_inf=None):
    _unscale(grads, grad_scale)
    for i, (p, g) in enumerate(zip(params, grads, strict=True)):
        g = -g if maximize else g
        g = g + p * weight_decay if weight_decay else g
        pairs = []
        if momentum:
            buf = momentum_buffer_list[i]
            buf_new = g if is_first_step else buf * momentum + g * (1 - dampening)
            pairs.append((buf, buf_new))
            g = g + buf_new * momentum if nesterov else buf_new
        _commit([(p, p - lr * g)] + pairs, found_inf)


def _fused_adagrad(params, grads, state_sums, state_steps, *, lr, lr_decay, weight_decay, eps,
                   maximize, grad_scale=None, found_inf=None):
    _unscale(grads, grad_scale)
    for p, g, total, step in zip(params, grads, state_sums, state_steps, strict=True):
        g = -g if maximize else g
        g = g + p * weight_decay if weight_decay else g
        total_new = total + g * g
        step_lr = lr / (1 + (step - 1) * lr_decay)
        _commit([(p, p - step_lr * g / (total_new.sqrt() + eps)), (total, total_new)], found_inf)


TABLE = {
    aten._fused_adam_.default: _fused_adam(False), aten._fused_adamw_.default: _fused_adam(True),
    aten._fused_adam_.tensor_lr: _fused_adam(False),
    aten._fused_adamw_.tensor_lr: _fused_adam(True),
    aten._fused_sgd_.default: _fused_sgd, aten._fused_sgd_.tensor_lr: _fused_sgd,
    aten._fused_adagrad_.default: _fused_adagrad,
}
