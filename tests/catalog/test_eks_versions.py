"""EKS's Kubernetes version window as dated data (catalog/eks_versions.py): which minors EKS offers on a day, in
which support, what a cluster in extended support is told, and the file made from EKS's own answer
(DescribeClusterVersions, through botocore's Stubber: moto does not implement it) with what moved since."""

import copy
import json
import re
from datetime import UTC, date, datetime, timedelta, timezone

import boto3
import botocore.session
import pytest
from botocore.stub import Stubber
from trainstack.catalog import eks_versions
from trainstack.catalog import generate_eks_versions as generator
from trainstack.catalog.eks_versions import DATA_DATE, VERSIONS, extended_support_note, newest, offered, version

COMMITTED = json.loads(eks_versions.DATA_FILE.read_text())


def test_the_data_is_dated_2026_11_28_and_holds_1_31_to_1_36_oldest_first():
    assert DATA_DATE == date(2026, 11, 28)
    assert [row.minor for row in VERSIONS] == ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36"]


def test_on_2026_11_28_1_34_to_1_36_are_in_standard_support_1_32_and_1_33_in_extended_and_1_31_has_ended():
    support = {row.minor: row.support_on(DATA_DATE) for row in VERSIONS}
    assert support == {"1.31": "ended", "1.32": "extended", "1.33": "extended", "1.34": "standard",
                       "1.35": "standard", "1.36": "standard"}


def test_1_34_is_standard_the_day_before_its_end_of_standard_support_and_extended_on_that_day():
    # Extended support is billed from 00:00 UTC of the end-of-standard-support day.
    row = version("1.34")
    assert row.end_of_standard_support == date(2026, 12, 2)
    assert row.support_on(date(2026, 12, 1)) == "standard"
    assert row.support_on(date(2026, 12, 2)) == "extended"


def test_1_31_is_extended_the_day_before_its_end_of_extended_support_and_ended_on_that_day():
    # On the end-of-extended-support date EKS creates no new cluster on the version.
    row = version("1.31")
    assert row.end_of_extended_support == date(2026, 11, 26)
    assert row.support_on(date(2026, 11, 25)) == "extended"
    assert row.support_on(date(2026, 11, 26)) == "ended"


def test_a_day_before_eks_released_a_minor_has_no_support_answer():
    with pytest.raises(ValueError, match=r"1\.36 was not offered by EKS on 2026-06-01: EKS released it on 2026-06-02"):
        version("1.36").support_on(date(2026, 6, 1))
    assert version("1.36").support_on(date(2026, 6, 2)) == "standard"


def test_every_row_keeps_eks_rule_of_14_months_standard_and_12_months_extended_support():
    for row in VERSIONS:
        released = row.eks_release
        assert row.end_of_standard_support == released.replace(year=released.year + (released.month + 13) // 12,
                                                               month=(released.month + 13) % 12 + 1), row.minor
        assert row.end_of_extended_support == row.end_of_standard_support.replace(
            year=row.end_of_standard_support.year + 1), row.minor
        assert row.kubernetes_release < row.eks_release and row.source.strip(), row.minor


def test_offered_on_the_data_date_is_1_32_to_1_36_oldest_first():
    assert offered() == ("1.32", "1.33", "1.34", "1.35", "1.36")
    assert offered(date(2026, 11, 25)) == ("1.31", "1.32", "1.33", "1.34", "1.35", "1.36")
    assert offered(date(2026, 6, 1)) == ("1.31", "1.32", "1.33", "1.34", "1.35")


def test_newest_is_1_36_from_its_eks_release_and_1_35_the_day_before():
    assert newest() == "1.36"
    assert newest(date(2026, 6, 2)) == "1.36"
    assert newest(date(2026, 6, 1)) == "1.35"


def test_a_minor_the_data_does_not_hold_has_no_row():
    assert version("1.30") is None and version("1.37") is None and version("v1.34") is None


def test_a_cluster_in_extended_support_is_told_since_when_what_it_costs_when_it_ends_and_the_command():
    assert extended_support_note("1.33", stack="prod") == (
        "Kubernetes 1.33 has been in EKS extended support since 2026-07-29: its control plane is billed at $0.60 per "
        "cluster-hour instead of $0.10, and support ends on 2027-07-29, after which EKS upgrades the cluster itself; "
        "fix: `trainstack upgrade --stack prod --to 1.34`.")
    assert "`trainstack upgrade --stack STACK --to 1.33`" in extended_support_note("1.32")


def test_no_note_for_a_minor_in_standard_support_past_its_extended_support_or_unknown():
    assert extended_support_note("1.34") is None
    assert extended_support_note("1.31") is None
    assert extended_support_note("1.30") is None
    assert extended_support_note("1.34", date(2026, 12, 2), stack="dev") == (
        "Kubernetes 1.34 has been in EKS extended support since 2026-12-02: its control plane is billed at $0.60 per "
        "cluster-hour instead of $0.10, and support ends on 2027-12-02, after which EKS upgrades the cluster itself; "
        "fix: `trainstack upgrade --stack dev --to 1.35`.")


@pytest.mark.parametrize("field,value,said", [
    ("endOfStandardSupport", "2026-13-02", "1.34 endOfStandardSupport '2026-13-02' is not an ISO date"),
    ("endOfExtendedSupport", "2026-12-01", "1.34's dates are out of order"),
    ("minor", "v1.34", "minor 'v1.34' is not a Kubernetes minor; write it as \"1.34\""),
    ("source", " ", "1.34 has no source"),
])
def test_a_row_the_module_cannot_use_is_refused_naming_its_field(field, value, said):
    document = copy.deepcopy(COMMITTED)
    (row,) = [row for row in document["versions"] if row["minor"] == "1.34"]
    row[field] = value
    with pytest.raises(ValueError, match="^" + re.escape(f"eks_versions.json: {said}")):
        eks_versions.parse(document)


# --- the file made from EKS's answer --------------------------------------------------------------------------------

PACIFIC = timezone(timedelta(hours=-8))


def instant(day: str) -> datetime:
    """The instant EKS answers for a calendar day: its 00:00 UTC, as the user guide's example writes it (US Pacific:
    "2025-11-25T16:00:00-08:00" for 1.31's end of standard support on 2025-11-26)."""
    return datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC).astimezone(PACIFIC)


STATUS = {"standard": "STANDARD_SUPPORT", "extended": "EXTENDED_SUPPORT", "ended": "UNSUPPORTED"}


def answered(rows: list[dict], day: date = DATA_DATE) -> list[dict]:
    """DescribeClusterVersions' ClusterVersionInformation for ``rows`` (the file's shape) on ``day``."""
    infos = []
    for row in rows:
        # EKS's answer carries no upstream release day: the row's own is not read.
        as_read = {**row, "kubernetesRelease": row["eksRelease"]}
        support = eks_versions.parse({"generatedOn": day.isoformat(), "versions": [as_read]})[1][0].support_on(day)
        infos.append({"clusterVersion": row["minor"], "clusterType": "eks", "defaultPlatformVersion": "eks.9",
                      "defaultVersion": row["minor"] == "1.35", "releaseDate": instant(row["eksRelease"]),
                      "endOfStandardSupportDate": instant(row["endOfStandardSupport"]),
                      "endOfExtendedSupportDate": instant(row["endOfExtendedSupport"]),
                      "status": STATUS[support].lower().replace("_", "-"), "versionStatus": STATUS[support],
                      "kubernetesPatchVersion": f"{row['minor']}.9"})
    return infos


OLDER = [{"minor": "1.29", "kubernetesRelease": "2023-12-13", "eksRelease": "2024-01-23",
          "endOfStandardSupport": "2025-03-23", "endOfExtendedSupport": "2026-03-23", "source": "-"},
         {"minor": "1.30", "kubernetesRelease": "2024-04-17", "eksRelease": "2024-05-23",
          "endOfStandardSupport": "2025-07-23", "endOfExtendedSupport": "2026-07-23", "source": "-"}]
"""Minors whose extended support ended before 1.31's (the calendar @ 0138560): the file keeps only the last one."""


def eks_client(pages: list[list[dict]]):
    """A real boto3 EKS client whose DescribeClusterVersions answers ``pages`` in turn, each request checked."""
    client = boto3.client("eks", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")
    stubber = Stubber(client)
    for index, page in enumerate(pages):
        token = {"nextToken": f"page-{index}"} if index else {}
        more = {"nextToken": f"page-{index + 1}"} if index + 1 < len(pages) else {}
        stubber.add_response("describe_cluster_versions", {"clusterVersions": page, **more},
                             {"clusterType": "eks", "includeAll": True, "maxResults": 100, **token})
    stubber.activate()
    return client, stubber


def test_the_generator_asks_for_every_eks_version_and_reads_every_page():
    infos = answered(COMMITTED["versions"])
    client, stubber = eks_client([infos[:2], infos[2:5], infos[5:]])
    assert generator.describe_cluster_versions(client) == infos
    stubber.assert_no_pending_responses()


def test_an_answer_equal_to_the_committed_calendar_makes_the_same_rows_in_the_same_format(tmp_path):
    data = tmp_path / "eks_versions.json"
    data.write_text(eks_versions.DATA_FILE.read_text())
    client, _ = eks_client([answered(OLDER + COMMITTED["versions"])])
    assert generator.main(["--refresh"], client=client, data_file=data, today=DATA_DATE) == 0
    written = json.loads(data.read_text())
    assert data.read_text() == generator.render(written)
    assert list(written) == ["generatedOn", "source", "versions"]
    assert written["generatedOn"] == "2026-11-28" and written["source"].startswith(
        "Amazon EKS DescribeClusterVersions, 2026-11-28 (clusterType eks, includeAll; botocore ")
    without_source = [{key: value for key, value in row.items() if key != "source"} for row in COMMITTED["versions"]]
    assert [{key: value for key, value in row.items() if key != "source"} for row in written["versions"]] == \
        without_source
    assert [list(row) for row in written["versions"]] == [list(row) for row in COMMITTED["versions"]]
    assert {row["source"] for row in written["versions"]} == {"Amazon EKS DescribeClusterVersions, 2026-11-28"}
    assert eks_versions.parse(written)[1][-1].minor == "1.36"


def test_the_committed_file_is_in_the_generators_format():
    assert eks_versions.DATA_FILE.read_text() == generator.render(COMMITTED)


def test_an_answered_instant_is_read_as_its_utc_day():
    # The user guide's example: 1.31 "releaseDate": "2024-09-25T17:00:00-07:00", the calendar's September 26, 2024.
    assert generator.utc_day(datetime(2024, 9, 25, 17, tzinfo=timezone(timedelta(hours=-7)))) == date(2024, 9, 26)


def test_a_new_minor_takes_its_upstream_release_day_from_the_generators_table():
    new = {"minor": "1.37", "kubernetesRelease": "-", "eksRelease": "2026-10-06", "endOfStandardSupport": "2027-12-06",
           "endOfExtendedSupport": "2028-12-06", "source": "-"}
    document = generator.build(answered(COMMITTED["versions"] + [new]), DATA_DATE, COMMITTED)
    assert document["versions"][-1]["kubernetesRelease"] == "2026-08-26"


def test_a_new_minor_without_an_upstream_release_day_is_refused_with_the_fix():
    new = {"minor": "1.38", "kubernetesRelease": "-", "eksRelease": "2027-02-01", "endOfStandardSupport": "2028-04-01",
           "endOfExtendedSupport": "2029-04-01", "source": "-"}
    with pytest.raises(ValueError, match=r"EKS offers 1\.38, .* add it to UPSTREAM_RELEASES from "
                                         r"kubernetes\.io/releases/1\.38/"):
        generator.build(answered(COMMITTED["versions"] + [new], date(2027, 3, 1)), date(2027, 3, 1), COMMITTED)


def test_a_version_status_that_disagrees_with_its_dates_is_named():
    infos = answered(COMMITTED["versions"])
    infos[3]["versionStatus"] = "EXTENDED_SUPPORT"  # 1.34, standard until 2026-12-02
    document = generator.build(infos, DATA_DATE, COMMITTED)
    assert generator.status_disagreements(infos, document, DATA_DATE) == [
        "1.34: versionStatus says extended support, its dates say standard on 2026-11-28"]


def moved_calendar() -> dict:
    """The committed rows as EKS might answer a week on: 1.37 added, 1.34's standard support extended a week,
    1.35's EKS release a day later, and 1.31 gone from the answer."""
    rows = copy.deepcopy(COMMITTED["versions"])[1:]
    (row_1_34,) = [row for row in rows if row["minor"] == "1.34"]
    row_1_34["endOfStandardSupport"] = "2026-12-09"
    (row_1_35,) = [row for row in rows if row["minor"] == "1.35"]
    row_1_35["eksRelease"] = "2026-01-28"
    rows.append({"minor": "1.37", "kubernetesRelease": "2026-08-26", "eksRelease": "2026-10-06",
                 "endOfStandardSupport": "2027-12-06", "endOfExtendedSupport": "2028-12-06", "source": "-"})
    return {"generatedOn": "2026-12-05", "source": "-", "versions": rows}


def test_drift_names_each_kind_of_move_oldest_minor_first():
    assert generator.drift(COMMITTED, moved_calendar()) == [
        "1.31 removed",
        "1.34: end of standard support 2026-12-02 -> 2026-12-09",
        "1.35: EKS release 2026-01-27 -> 2026-01-28",
        "1.37 added: EKS release 2026-10-06, end of standard support 2027-12-06, end of extended support 2028-12-06"]


def test_drift_of_an_equal_answer_is_nothing_whatever_its_date_and_sources():
    same = copy.deepcopy(COMMITTED)
    same["generatedOn"], same["source"] = "2026-12-05", "elsewhere"
    for row in same["versions"]:
        row["source"] = "elsewhere"
    assert generator.drift(COMMITTED, same) == []


def test_check_prints_what_moved_and_exits_1_and_0_when_nothing_moved(tmp_path, capsys):
    data = tmp_path / "eks_versions.json"
    data.write_text(eks_versions.DATA_FILE.read_text())
    day = date(2026, 12, 5)
    client, _ = eks_client([answered(moved_calendar()["versions"], day)])
    assert generator.main(["--check"], client=client, data_file=data, today=day) == 1
    out = capsys.readouterr().out
    assert "1.34: end of standard support 2026-12-02 -> 2026-12-09" in out and "1.37 added" in out
    assert "run `python -m trainstack.catalog.generate_eks_versions --refresh`" in out
    assert data.read_text() == eks_versions.DATA_FILE.read_text()
    client, _ = eks_client([answered(COMMITTED["versions"])])
    assert generator.main(["--check"], client=client, data_file=data, today=DATA_DATE) == 0
    assert "no drift" in capsys.readouterr().out


def test_the_fields_and_values_the_generator_reads_are_in_botocores_eks_model():
    model = botocore.session.get_session().get_service_model("eks")
    operation = model.operation_model("DescribeClusterVersions")
    assert operation.name == "".join(part.title() for part in generator.OPERATION.split("_"))
    request = operation.input_shape.members
    assert set(generator.REQUEST) | {"nextToken"} <= set(request)
    assert {"clusterVersions", "nextToken"} <= set(operation.output_shape.members)
    info = operation.output_shape.members["clusterVersions"].member
    assert set(generator.FIELDS) <= set(info.members)
    assert {name: info.members[name].type_name for name in generator.FIELDS[2:5]} == dict.fromkeys(
        generator.FIELDS[2:5], "timestamp")
    assert set(generator.STATUS) == set(info.members["versionStatus"].enum)
    # The deprecated field is not the one read: its values are spelled otherwise.
    assert "status" not in generator.FIELDS
    assert set(info.members["status"].enum) == {"unsupported", "standard-support", "extended-support"}


def test_the_module_runs_as_the_generator_and_asks_for_refresh_or_check():
    import subprocess
    import sys

    helped = subprocess.run([sys.executable, "-m", "trainstack.catalog.generate_eks_versions", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--refresh" in helped.stdout and "--check" in helped.stdout, helped.stderr
    neither = subprocess.run([sys.executable, "-m", "trainstack.catalog.generate_eks_versions"],
                             capture_output=True, text=True, timeout=60)
    assert neither.returncode == 2 and "one of the arguments --refresh --check is required" in neither.stderr
