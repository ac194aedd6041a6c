"""Deploy a stack with the real Pulumi engine through the Automation API (``deploy.engine``)."""
