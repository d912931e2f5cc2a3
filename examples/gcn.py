"""Semi-supervised node classification with a two-layer graph convolutional network (Kipf & Welling,
2017), written as the pygcn example is: a row of plain PyTorch, a sparse normalized adjacency
D^-1/2 (A + I) D^-1/2 built with sparse ops, torch.spmm in each layer, Adam, full-batch epochs.

The graph is synthetic (a planted-partition graph whose node features are noisy class centres), so
the script needs no download:

    python examples/gcn.py                       # on PyTorch
    python -m mstorch run examples/gcn.py        # the same file on MindSpore, through mstorch
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def synthetic_graph(n_nodes, n_features, n_classes, n_edges):
    labels = torch.randint(0, n_classes, (n_nodes,))
    src = torch.randint(0, n_nodes, (n_edges,))
    dst = torch.randint(0, n_nodes, (n_edges,))
    # edges mostly join nodes of the same class
    keep = (labels[src] == labels[dst]) | (torch.rand(n_edges) < 0.1)
    edges = torch.stack([src[keep], dst[keep]])
    centres = torch.randn(n_classes, n_features)
    features = centres[labels] + 2.0 * torch.randn(n_nodes, n_features)
    return features, labels, edges


def normalized_adjacency(edges, n, self_loop_weight):
    """D^-1/2 (A + w I) D^-1/2 as a sparse COO tensor."""
    adj = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (n, n))
    adj = (adj + adj.t()).coalesce()
    adj = torch.sparse_coo_tensor(adj.indices(), torch.ones_like(adj.values()), (n, n))  # drop multi-edges
    diagonal = torch.arange(n).repeat(2, 1)
    eye = torch.sparse_coo_tensor(diagonal, torch.ones(n), (n, n))
    adj = adj + eye * self_loop_weight
    degree = torch.sparse.sum(adj, dim=1).to_dense()
    d_inv_sqrt = torch.sparse_coo_tensor(diagonal, degree.pow(-0.5), (n, n))
    return torch.sparse.mm(torch.sparse.mm(d_inv_sqrt, adj), d_inv_sqrt)


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        stdv = 1.0 / math.sqrt(out_features)
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, x, adj):
        return torch.spmm(adj, torch.mm(x, self.weight)) + self.bias


class GCN(nn.Module):
    def __init__(self, n_features, n_hidden, n_classes, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(n_features, n_hidden)
        self.gc2 = GraphConvolution(n_hidden, n_classes)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


def accuracy(output, labels):
    return (output.argmax(1) == labels).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--dropout", type=float, default=0.5)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    n_classes = 4
    features, labels, edges = synthetic_graph(args.nodes, 32, n_classes, 6 * args.nodes)
    adj = normalized_adjacency(edges, args.nodes, self_loop_weight=1.0)
    print(f"graph: {args.nodes} nodes, {adj._nnz()} stored entries, {n_classes} classes")
    idx_train = torch.arange(0, args.nodes // 5)
    idx_val = torch.arange(args.nodes // 5, args.nodes // 2)
    idx_test = torch.arange(args.nodes // 2, args.nodes)

    model = GCN(features.shape[1], args.hidden, n_classes, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    for epoch in range(1, args.epochs + 1):
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss_train = F.nll_loss(output[idx_train], labels[idx_train])
        loss_train.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            output = model(features, adj)
            loss_val = F.nll_loss(output[idx_val], labels[idx_val])
        print(f"epoch {epoch:03d} loss_train {loss_train.item():.6f} loss_val {loss_val.item():.6f} "
              f"acc_val {accuracy(output[idx_val], labels[idx_val]):.4f}")
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
    print(f"test loss {F.nll_loss(output[idx_test], labels[idx_test]).item():.6f} "
          f"accuracy {accuracy(output[idx_test], labels[idx_test]):.4f}")


if __name__ == "__main__":
    main()
