"""A training step of a real transformer (Thunder's nanoGPT, two layers): the explorer at scale."""

import thunder
import torch
from thunder.tests import nanogpt_model

torch.manual_seed(0)
config = nanogpt_model.GPTConfig(n_layer=2, n_head=2, n_embd=32, block_size=16, vocab_size=64, dropout=0.0)
model = thunder.jit(nanogpt_model.GPT(config))
idx = torch.randint(0, 64, (2, 16))
targets = torch.randint(0, 64, (2, 16))
logits, loss = model(idx, targets)
loss.backward()
print("loss:", round(loss.item(), 4))
