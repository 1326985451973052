"""A training step that runs on two batch sizes: the explorer's example on the site."""

import thunder
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


torch.manual_seed(0)
model = thunder.jit(Model())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in (8, 8, 16):  # the third step has a new shape: Thunder compiles again
    x, target = torch.randn(batch, 16), torch.randn(batch, 4)
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print("loss:", round(loss.item(), 4))
