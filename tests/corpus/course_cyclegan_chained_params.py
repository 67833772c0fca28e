# Written for gradcli after CycleGAN's training code (junyanz/pytorch-CycleGAN-and-pix2pix,
# models/cycle_gan_model.py): one optimizer over two generators' parameters joined by
# itertools.chain, trained on a cycle-consistency L1 loss; itertools.product for a small
# grid of learning rates and loss weights, itertools.islice/cycle to take batches.
import itertools

import torch
import torch.nn as nn

torch.manual_seed(0)
data = [torch.randn(4, 3) for _ in range(3)]

for lr, lambda_A in itertools.product([0.01, 0.1], [1.0, 10.0]):
    torch.manual_seed(1)
    netG_A = nn.Linear(3, 3)
    netG_B = nn.Linear(3, 3)
    optimizer_G = torch.optim.Adam(itertools.chain(netG_A.parameters(), netG_B.parameters()),
                                   lr=lr, betas=(0.5, 0.999))
    criterionCycle = nn.L1Loss()
    for real_A in itertools.islice(itertools.cycle(data), 5):
        fake_B = netG_A(real_A)
        rec_A = netG_B(fake_B)
        loss_cycle_A = criterionCycle(rec_A, real_A) * lambda_A
        optimizer_G.zero_grad()
        loss_cycle_A.backward()
        optimizer_G.step()
    print(lr, lambda_A, round(loss_cycle_A.item(), 4), len(optimizer_G.param_groups[0]["params"]))

pairs = list(itertools.combinations(range(len(data)), 2))
dists = [torch.dist(data[i], data[j]) for i, j in pairs]
print(pairs, torch.stack(dists))
running = list(itertools.accumulate(d.item() for d in dists))
print([round(r, 3) for r in running])
for k, group in itertools.groupby(sorted(dists, key=lambda d: d > 3), key=lambda d: bool(d > 3)):
    print(k, len(list(group)))
print(list(itertools.zip_longest("ab", [1], fillvalue=None)), list(itertools.pairwise([1, 2, 4])))
