"""``torch.optim.lr_scheduler``: learning-rate schedules over an optimizer's param groups.

PyTorch's schedulers are Python: each ``step()`` computes the next rates from the current ones
(the chainable form) in Python floats, so the same formulas give the same numbers.  As in
PyTorch (torch/optim/lr_scheduler.py, 2.13): a scheduler records each group's ``initial_lr``,
takes one step when it is made (epoch 0), and warns once if its first ``step()`` comes before
the optimizer's.  StepLR, MultiStepLR, ExponentialLR, LambdaLR and CosineAnnealingLR.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..engine.context import current
from ..errors import ScriptError
from .optim import Optimizer

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value "
    "of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


class LRScheduler:
    """The base: ``step()``, ``get_last_lr()``, ``last_epoch`` and ``base_lrs``."""

    def __init__(self, optimizer: Any, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise ScriptError(f"{type(optimizer).__name__} is not an Optimizer", kind="TypeError")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise ScriptError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                      "when resuming scheduler with last_epoch >= 0.",
                                      kind="KeyError")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        optimizer.watched_by_scheduler = True  # its step() now says that it ran
        self._step_count = 0
        self._initial = True
        self.step()
        self._initial = False

    def get_last_lr(self) -> list[Any]:
        """The rates the last ``step()`` set, one per param group."""
        return self._last_lr

    def step(self) -> None:
        """Advance one epoch and set each group's ``lr``."""
        if self._step_count == 1 and not self.optimizer.stepped_since_watched:
            current().warn(_ORDER_WARNING)
        self._step_count += 1
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self._rates()):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _rates(self) -> list[Any]:
        """The rates for ``last_epoch`` (each schedule's own rule)."""
        raise NotImplementedError  # an abstract method: every schedule defines it

    def _current(self) -> list[Any]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def __repr__(self) -> str:
        return f"<torch.optim.lr_scheduler.{type(self).__name__} object at 0x{id(self):x}>"


class StepLR(LRScheduler):
    """The rate times ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Any, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _rates(self) -> list[Any]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class MultiStepLR(LRScheduler):
    """The rate times ``gamma`` at each milestone epoch (as often as it is listed)."""

    def __init__(self, optimizer: Any, milestones: Any, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _rates(self) -> list[Any]:
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]


class ExponentialLR(LRScheduler):
    """The rate times ``gamma`` every epoch."""

    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _rates(self) -> list[Any]:
        if self._initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class LambdaLR(LRScheduler):
    """Each group's initial rate times ``lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer: Any, lr_lambda: Any, last_epoch: int = -1) -> None:
        groups = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ScriptError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}",
                                  kind="ValueError")
            self.lr_lambdas: list[Callable[[int], float]] = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def _rates(self) -> list[Any]:
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from each initial rate down to ``eta_min`` over ``T_max`` epochs, in
    PyTorch's recursive form (each rate from the previous one)."""

    def __init__(self, optimizer: Any, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _rates(self) -> list[Any]:
        e, t, low = self.last_epoch, self.T_max, self.eta_min
        if self._initial:
            return self._current()
        if self._step_count == 1 and e > 0:
            return [low + (base - low) * (1 + math.cos(e * math.pi / t)) / 2
                    for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / t)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (lr - low) + low for lr in self._current()]


# The schedules a script can build (the LRScheduler base is not offered for subclassing).
SCHEDULERS = {cls.__name__: cls for cls in (StepLR, MultiStepLR, ExponentialLR, LambdaLR,
                                            CosineAnnealingLR)}
