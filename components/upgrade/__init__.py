"""A cluster's upgrade to a newer Kubernetes minor (issue 56): what trainstack renders judged against the target
minor's API (``api_check``), and the stack-file changes the upgrade takes, one reviewable step each."""
