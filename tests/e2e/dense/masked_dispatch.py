"""Mixture-of-experts layers that select each expert's rows with a boolean mask and store the
expert's output back with it (GM407's masked-store form, rules/GM407.md): the loops graphmend
rewrites with --unsafe-fixes, and one it declines."""
import torch
from torch import nn


class DenseActDense(nn.Module):
    def __init__(self, dim, inner):
        super().__init__()
        self.wi = nn.Linear(dim, inner, bias=False)
        self.wo = nn.Linear(inner, dim, bias=False)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states):
        return self.wo(self.dropout(torch.relu(self.wi(hidden_states))))


class Top1Router(nn.Module):
    """Switch Transformers' router: each token's best expert, one-hot, within a capacity (a token
    past its expert's capacity is routed nowhere)."""

    def __init__(self, dim, num_experts, capacity):
        super().__init__()
        self.classifier = nn.Linear(dim, num_experts, bias=False)
        self.num_experts, self.capacity = num_experts, capacity

    def forward(self, hidden_states):
        router_probs = torch.softmax(self.classifier(hidden_states), dim=-1)
        expert_index = torch.argmax(router_probs, dim=-1)
        expert_index = torch.nn.functional.one_hot(expert_index, num_classes=self.num_experts)
        token_priority = torch.cumsum(expert_index, dim=-2)
        expert_index = expert_index * (token_priority <= self.capacity)
        router_probs = torch.max(router_probs, dim=-1).values.unsqueeze(-1)
        return expert_index, router_probs


class RoutedExperts(nn.Module):
    """A top-1 router and its experts, by name (`expert_0`, ...), as Switch Transformers keeps them."""

    def __init__(self, dim=16, inner=32, num_experts=5, capacity=4):
        super().__init__()
        self.router = Top1Router(dim, num_experts, capacity)
        self.experts = nn.ModuleDict({f"expert_{i}": DenseActDense(dim, inner) for i in range(num_experts)})


class SwitchForm(RoutedExperts):
    """Switch Transformers' form: the list of experts hit, the mask inline."""

    def forward(self, hidden_states: torch.Tensor):
        router_mask, router_probs = self.router(hidden_states)
        next_states = torch.zeros(hidden_states.shape, device=hidden_states.device, dtype=hidden_states.dtype)
        router_mask = router_mask.bool()
        batch_size, seq_len, num_experts = router_mask.shape
        idx_mask = router_mask.reshape(batch_size * seq_len, num_experts).sum(dim=0)
        idx_mask = torch.nonzero(idx_mask, as_tuple=True)[0].tolist()
        for idx in idx_mask:
            next_states[router_mask[:, :, idx]] = getattr(self.experts, "expert_{}".format(idx))(
                hidden_states[router_mask[:, :, idx]]
            )
        return router_probs * next_states


class GPTSanForm(RoutedExperts):
    """GPTSan's form: every expert, the mask named, the rows kept where no expert routes."""

    def forward(self, hidden_states: torch.Tensor):
        router_mask, router_probs = self.router(hidden_states)
        next_states = hidden_states.clone()
        for idx, expert in enumerate(self.experts.values()):
            token_indices = router_mask[:, :, idx].bool()
            next_states[token_indices] = expert(hidden_states[token_indices]).to(next_states.dtype)
        return router_probs * next_states


class ScoredExperts(nn.Module):
    """Experts in a list; the caller's scores say which rows each takes."""

    def __init__(self, dim=16, inner=32, num_experts=3):
        super().__init__()
        self.num_experts = num_experts
        self.experts = nn.ModuleList([DenseActDense(dim, inner) for _ in range(num_experts)])


class RangeForm(ScoredExperts):
    """A loop over range(...) with the mask given: masks may overlap (the later expert's rows win)
    and its shape may not match the rows (the original raises)."""

    def forward(self, hidden_states: torch.Tensor, scores: torch.Tensor):
        masks = (scores > 0.3).bool()
        out = hidden_states * 0.5
        for e in range(self.num_experts):
            out[masks[:, e]] = self.experts[e](hidden_states[masks[:, e]])
        return out


class NotBool(ScoredExperts):
    """Declined: the mask is boolean, but not by `.bool()`."""

    def forward(self, hidden_states: torch.Tensor, scores: torch.Tensor):
        masks = scores > 0.3
        out = hidden_states * 0.5
        for e in range(self.num_experts):
            out[masks[:, e]] = self.experts[e](hidden_states[masks[:, e]])
        return out
