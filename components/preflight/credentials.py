"""AWS credentials, as every command that calls AWS finds them, and the one line said when they are missing.

`trainstack preflight`, `capacity`, `prices refresh` and `upgrade --aws` use boto3's default chain. Where it finds
nothing usable, botocore raises its own errors ("Unable to locate credentials"), which name neither where it looked
nor how to give them; ``cli/errors.print_error`` asks :func:`credentials_problem` for that line and exits 2, as for
any input the user can fix.

Where botocore looks, in order (``create_credential_resolver``, botocore/credentials.py at botocore 1.44.8): the
environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``), a role to assume named by
the profile, then the profile's own sources (a web identity token, IAM Identity Center, the shared credentials
file, an ``aws login`` session, ``credential_process``, the config file), then a container's credentials (ECS, EKS
Pod Identity) and the instance's role (instance metadata). The profile is ``AWS_DEFAULT_PROFILE``, else
``AWS_PROFILE``, else ``default`` (botocore/configprovider.py, ``profile``).
"""

from __future__ import annotations

import os
from typing import Any, Optional

SSO_ERRORS = ("SSOError", "SSOTokenLoadError", "UnauthorizedSSOTokenError", "TokenRetrievalError", "LoginError",
              "LoginRefreshRequired", "LoginTokenLoadError")
"""botocore's errors for a sign-in session that expired or never began (IAM Identity Center, ``aws login``); named,
not imported, so a botocore without the newer ones still loads this module."""


def credentials_problem(error: BaseException) -> Optional[str]:
    """The one line (problem and fix) for botocore's error of finding credentials; None for any other error."""
    if not type(error).__module__.startswith("botocore"):
        return None  # not botocore's: no need to import it
    from botocore import exceptions

    lineage = {kind.__name__ for kind in type(error).__mro__}
    profile = _profile()
    if isinstance(error, exceptions.NoCredentialsError):
        return (f"no AWS credentials found: botocore looked in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profile "
                f"'{profile}' in {_files()} (keys, IAM Identity Center, credential_process, a role to assume), a web "
                f"identity token, a container's credentials (ECS, EKS Pod Identity) and {_instance_role()}. Fix: "
                "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or "
                "set AWS_PROFILE to a profile those files hold (`aws configure`, or `aws configure sso` then "
                "`aws sso login --profile NAME`), or run where an instance or pod role applies.")
    if isinstance(error, exceptions.PartialCredentialsError):
        return (f"AWS credentials are incomplete: {_said(error)}. Fix: set the missing one, or unset the other so "
                "botocore looks further (a profile, IAM Identity Center, the instance's role).")
    if isinstance(error, exceptions.ProfileNotFound):
        return (f"{_said(error)}: it is in neither of {_files()}. Fix: set AWS_PROFILE to a profile they hold "
                "(`aws configure list-profiles`), or unset it.")
    if lineage & set(SSO_ERRORS):
        login = "aws login" if "LoginError" in lineage else "aws sso login"
        return (f"the AWS sign-in session of profile '{profile}' has expired or was never started: {_said(error)}. "
                f"Fix: run `{login} --profile {profile}`, then run this again.")
    if isinstance(error, exceptions.CredentialRetrievalError):
        return (f"AWS credentials could not be obtained for profile '{profile}': {_said(error)}. Fix: run the "
                "profile's source by hand (its credential_process, or the role it assumes) and correct what it says.")
    return None


def require_credentials(session: Any) -> None:
    """Raise botocore's error now when ``session`` has no usable credentials, before any check is asked; a failure
    to reach AWS is left to the checks, which say they could not run."""
    from botocore.exceptions import BotoCoreError, NoCredentialsError

    credentials = session.get_credentials()  # PartialCredentialsError, ProfileNotFound: raised as they are
    if credentials is None:
        raise NoCredentialsError()
    try:
        credentials.get_frozen_credentials()  # an expired IAM Identity Center session says so here
    except BotoCoreError as error:
        if credentials_problem(error) is not None:
            raise


def _said(error: BaseException) -> str:
    return str(error).rstrip(".")


def _profile() -> str:
    return os.environ.get("AWS_DEFAULT_PROFILE") or os.environ.get("AWS_PROFILE") or "default"


def _files() -> str:
    credentials = os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or "~/.aws/credentials"
    config = os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config"
    return f"{credentials} and {config}"


def _instance_role() -> str:
    if os.environ.get("AWS_EC2_METADATA_DISABLED", "").lower() == "true":
        return "no instance role (AWS_EC2_METADATA_DISABLED is true)"
    return "the instance's role"
