"""The component package's plugin entry point (PulumiPlugin.yaml): serve trainstack's components."""

from trainstack.package.host import main

if __name__ == "__main__":
    main()
