UPDATE container SET default_ttl = :default_ttl WHERE singleton = 1
