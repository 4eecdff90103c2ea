"""[Trap] a torch.equal guard (GB0033: Data dependent operator)."""
import torch


@torch.compile
def attend(attention_mask: torch.Tensor, expected: torch.Tensor):
    scores = attention_mask.float() * 2
    if not torch.equal(attention_mask, expected):
        raise ValueError("unsupported attention mask")
    return scores


def cases():
    m = torch.ones(2, 3)
    return [(attend, (m, m.clone()))]
