"""Default all-reduce floors: half the peak of the link that bounds the bus bandwidth."""

import pytest
from trainstack.launch import LaunchError
from trainstack.launch.floors import default_floor


@pytest.mark.parametrize("instance_type, nodes, gpus, floor, expected", [
    ("p5.48xlarge", 1, 8, 1800, 3600),       # NVLink 4: 900 GB/s both ways, 450 GB/s each way
    ("p5en.48xlarge", 1, 2, 1800, 3600),
    ("p4d.24xlarge", 1, 8, 1200, 2400),      # NVLink 3: 600 GB/s
    ("p6-b200.48xlarge", 1, 8, 3600, 7200),  # NVLink 5: 1.8 TB/s
    ("p5.48xlarge", 4, 8, 1600, 3200),       # EC2: 3200 Gigabit
    ("p4d.24xlarge", 2, 8, 200, 400),        # EC2: 4x 100 Gigabit
    ("p6-b300.48xlarge", 2, 8, 3200, 6400),  # EC2: 6400 Gigabit; the EFA page: 6400 Gbps of EFA
    ("p6-b200.48xlarge", 2, 8, 1600, 3200),  # EC2: 3200 Gigabit; the EFA page: 3200 Gbps of EFA
    ("p6-b300.48xlarge", 1, 8, 3600, 7200),  # NVLink 5
    ("p6e-gb200.36xlarge", 1, 4, 3600, 7200),  # NVLink 5
    ("p6e-gb200.36xlarge", 2, 4, 800, 1600),  # the EFA page: 1,600 Gbps of EFA, below the 3200 Gigabit network
    ("g5.48xlarge", 2, 8, 50, 100),          # the network (100) is below PCIe (256)
    ("g6e.48xlarge", 2, 8, 128, 256),        # PCIe 4.0 (256) is below the network (400)
    ("g6e.48xlarge", 2, 1, 200, 400),        # one GPU a node: only the network counts
])
def test_default_floor_is_half_the_bounding_peak(instance_type, nodes, gpus, floor, expected):
    result = default_floor(instance_type, nodes, gpus)
    assert (result.gbps, result.expected_gbps) == (floor, expected)


def test_the_basis_names_the_source_and_marks_vendor_figures_as_estimates():
    assert "estimate" in default_floor("p5.48xlarge", 1, 8).basis
    assert "NetworkPerformance" in default_floor("p5.48xlarge", 2, 8).basis
    assert "estimate" in default_floor("g6e.48xlarge", 2, 8).basis
    assert "efa-for-p6e" in default_floor("p6e-gb200.36xlarge", 2, 4).basis


@pytest.mark.parametrize("instance_type, nodes, message", [
    ("g5.xlarge", 2, "no EFA bandwidth for g5.xlarge, so there is no default floor across 2 nodes; "
                     "pass --floor-gbps"),
    ("c5.large", 2, "c5.large is not a GPU type in the catalog"),
    ("p9.48xlarge", 1, "p9.48xlarge is not a GPU type in the catalog"),
])
def test_no_default_floor_without_a_sourced_peak(instance_type, nodes, message):
    with pytest.raises(LaunchError, match=message):
        default_floor(instance_type, nodes, 8)
