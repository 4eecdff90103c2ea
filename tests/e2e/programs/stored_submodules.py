"""Reachability through self.attr.method(), with self.attr an object the class stores: built in
place, or passed to __init__ by a subclass's super().__init__(...) (torchvision's detection
models keep their GeneralizedRCNNTransform this way)."""
import torch
from torch import Tensor, nn


def paste(mask, box):
    # type: (Tensor, Tensor) -> Tensor
    width = int(box[2] - box[0] + 1)
    return mask[:, :width]


class Transform:
    def __init__(self, size):
        self.size = size

    def postprocess(self, mask, box):
        return paste(mask, box) * 2


class Norm(nn.Module):
    def scale(self, x):
        x = x / 2
        print("scale")
        return x


class Detector(nn.Module):
    def __init__(self, transform):
        super().__init__()
        self.transform = transform
        self.norm = Norm()

    def forward(self, mask, box):
        mask = self.norm.scale(mask)
        return self.transform.postprocess(mask, box)


class BoxDetector(Detector):
    def __init__(self):
        transform = Transform(4)
        super().__init__(transform)


def cases():
    box = torch.tensor([0.0, 0.0, 2.0, 2.0])
    return [(BoxDetector(), (torch.randn(3, 5), box))]
