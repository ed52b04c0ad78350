/// The version this program was built from (`questbox --version`); `text` is written at
/// build time by scripts/version.sh from `git describe` (the VersionStamp plugin).
public enum BuildVersion {}
