// placeholder until the training loop lands
namespace symx::train {}
