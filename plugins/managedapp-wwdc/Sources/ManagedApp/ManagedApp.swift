// UNOFFICIAL. Not Apple's ManagedApp framework: mamsim's MAMManagedAppFacade, which re-declares its
// public names for tests, re-exported under the name apps import.
@_exported import MAMManagedAppFacade
