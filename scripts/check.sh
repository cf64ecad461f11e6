#!/usr/bin/env bash
# Runs the in-process tests, already built (make check builds them first): every test
# target but IntegrationTests, less the few tests in the others that start a process
# needing the test packages. What is left needs the build packages only, starts no bus
# and no notification server, and takes seconds; make test runs everything.
#
# SWIFT  the swift driver (default swift)
# Arguments are passed on to swift test (--filter, --parallel, …).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

skip=(
    # chimed, chime and the servers as separate processes on private buses.
    IntegrationTests
    # A private dbus-daemon per test (dbus-daemon is a test package).
    'DBusTests\.ConnectionTests/'
    # MatchRuleTests' rule text is the one test of the suite without a bus.
    'DBusTests\.MatchRuleTests/a'
    'ChimeDaemonTests\.AppLauncherTests/'
    'ChimeDaemonTests\.CommandRunnerTests/(aUserManagerIsAskedForAScopeHoldingTheCommand|withoutAUserManagerCommandsRunAsBeforeAndThatIsSaid)\('
    # And gnome-keyring-daemon, secret-tool and a python fake keyring on that bus.
    'ChimeDaemonTests\.PasswordsTests/'
    # Python's answers as the oracle (python3-dateutil, python3-convertdate).
    'ChimeCoreTests\.RRuleOracleTests/'
    # python-icalendar, in .build/oracle (make test).
    'ICSTests\.AlarmOracleTests/'
    'ChimeCoreTests\.CalendarStepsTests/(gregorianStepsAreProlepticAsInPython|hebrew)'
    # Radicale (a test package) as the server.
    'WebDAVTests\.MultistatusTests/AgainstRadicale/'
    # The HTTP client's peers are python3 servers, one of them TLS with a certificate openssl makes.
    'WebDAVTests\.HTTPClientTests/'
)
pattern=$(IFS='|'; echo "${skip[*]}")
# No test here may reach the session bus of whoever runs it.
exec env -u DBUS_SESSION_BUS_ADDRESS "${SWIFT:-swift}" test --skip-build --skip "$pattern" "$@"
