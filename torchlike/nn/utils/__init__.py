from torchlike.nn.utils import rnn
