#include "core/location.hpp"

#include <filesystem>

namespace symx::detail {
namespace {
thread_local std::string location_override;
}

UserLocation::UserLocation(std::string where) : previous_(std::move(location_override)) {
  location_override = std::move(where);
}
UserLocation::~UserLocation() { location_override = std::move(previous_); }

std::string where_string(Loc loc) {
  if (!location_override.empty()) return location_override;
  if (loc.line() == 0 || loc.file_name() == nullptr || *loc.file_name() == '\0') return "";
  return std::filesystem::path(loc.file_name()).filename().string() + ":" + std::to_string(loc.line());
}

}  // namespace symx::detail
