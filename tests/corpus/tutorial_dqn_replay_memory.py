# Written for gradcli after PyTorch's "Reinforcement Learning (DQN) Tutorial"
# (https://pytorch.org/tutorials/intermediate/reinforcement_q_learning.html): transitions kept
# as namedtuples in a bounded deque, a batch drawn with random.sample and transposed with
# zip, non-final states masked, the Q-learning loss; episodes counted with itertools.count.
import random
from collections import deque, namedtuple
from itertools import count

import torch
import torch.nn as nn

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))
memory = deque([], maxlen=6)
random.seed(3)
torch.manual_seed(0)
policy_net = nn.Linear(4, 2)
optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-2)  # the tutorial's AdamW

for t in count():
    state = torch.randn(1, 4)
    action = torch.tensor([[t % 2]])
    next_state = None if t % 3 == 2 else torch.randn(1, 4)
    memory.append(Transition(state, action, next_state, torch.tensor([1.0])))
    if t == 7:
        break
print(len(memory), memory.maxlen, t, memory[0].action, type(memory[0]).__name__)

transitions = random.sample(memory, 4)
batch = Transition(*zip(*transitions))
non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)),
                              dtype=torch.bool)
non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
state_batch = torch.cat(batch.state)
action_batch = torch.cat(batch.action)
reward_batch = torch.cat(batch.reward)
print(non_final_mask, state_batch.shape, action_batch.view(-1))

state_action_values = policy_net(state_batch).gather(1, action_batch)
next_state_values = torch.zeros(4)
with torch.no_grad():
    next_state_values[non_final_mask] = policy_net(non_final_next_states).max(1).values
expected = (next_state_values * 0.99) + reward_batch
criterion = nn.SmoothL1Loss()
loss = criterion(state_action_values, expected.unsqueeze(1))
optimizer.zero_grad()
loss.backward()
torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
optimizer.step()
print(loss, policy_net.weight.grad.abs().sum())
print(batch._fields, batch.action[0], Transition(1, 2, 3, 4))
