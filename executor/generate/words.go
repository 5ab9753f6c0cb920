package generate

// Small word lists for the named generators of patterns: enough variety to look real in a
// sample of rows, small enough to live in the binary. Only ASCII, so that a value's length
// in characters is its length in bytes.
var (
	firstNames = []string{"Emma", "Noah", "Olivia", "Liam", "Ava", "Lucas", "Mia", "Ethan", "Sofia", "Mateo",
		"Amelia", "Leo", "Chloe", "Oliver", "Isla", "Hugo", "Grace", "Arthur", "Zoe", "Louis",
		"Nora", "Jack", "Alice", "Henry", "Lea", "Adam", "Clara", "Samuel", "Anna", "David",
		"Maria", "Daniel", "Laura", "Thomas", "Julia", "Gabriel", "Sarah", "Elias", "Emily", "Jonas",
		"Hannah", "Ali", "Fatima", "Yuki", "Wei", "Priya", "Arjun", "Kofi", "Amara", "Ines"}
	lastNames = []string{"Smith", "Johnson", "Garcia", "Brown", "Martin", "Miller", "Davis", "Lopez", "Wilson", "Anderson",
		"Taylor", "Thomas", "Moore", "Jackson", "Lee", "Perez", "White", "Harris", "Clark", "Lewis",
		"Robinson", "Walker", "Young", "King", "Wright", "Scott", "Green", "Baker", "Adams", "Nelson",
		"Muller", "Schmidt", "Schneider", "Fischer", "Weber", "Rossi", "Russo", "Bianchi", "Dubois", "Bernard",
		"Nguyen", "Tran", "Kim", "Park", "Tanaka", "Suzuki", "Singh", "Kumar", "Silva", "Santos"}
	cities = []string{"London", "Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Dublin", "Vienna", "Prague", "Warsaw",
		"Amsterdam", "Brussels", "Copenhagen", "Stockholm", "Oslo", "Helsinki", "Athens", "Budapest", "Zurich", "Milan",
		"New York", "Chicago", "Toronto", "Boston", "Seattle", "Denver", "Austin", "Mexico City", "Sao Paulo", "Buenos Aires",
		"Tokyo", "Osaka", "Seoul", "Beijing", "Shanghai", "Singapore", "Mumbai", "Delhi", "Sydney", "Melbourne",
		"Cairo", "Lagos", "Nairobi", "Cape Town", "Istanbul", "Dubai", "Bangkok", "Jakarta", "Manila", "Auckland"}
	countries = []string{"United Kingdom", "France", "Germany", "Spain", "Italy", "Portugal", "Ireland", "Austria", "Poland", "Netherlands",
		"Belgium", "Denmark", "Sweden", "Norway", "Finland", "Greece", "Hungary", "Switzerland", "United States", "Canada",
		"Mexico", "Brazil", "Argentina", "Chile", "Japan", "South Korea", "China", "Singapore", "India", "Australia",
		"New Zealand", "Egypt", "Nigeria", "Kenya", "South Africa", "Turkey", "Thailand", "Indonesia", "Philippines", "Vietnam"}
	streets = []string{"Oak", "Maple", "Cedar", "Pine", "Elm", "Main", "High", "Church", "Park", "Station",
		"Mill", "Bridge", "Victoria", "King", "Queen", "Market", "Garden", "River", "Lake", "Hill"}
	streetKinds = []string{"Street", "Road", "Avenue", "Lane", "Way", "Drive"}
	words       = []string{"apple", "river", "stone", "light", "cloud", "paper", "garden", "silver", "window", "market",
		"bridge", "forest", "engine", "harbor", "letter", "mirror", "planet", "signal", "summer", "winter",
		"orange", "pocket", "rocket", "castle", "meadow", "island", "candle", "ticket", "button", "basket",
		"blue", "green", "quick", "quiet", "bright", "simple", "golden", "little", "open", "fresh",
		"table", "chair", "house", "story", "music", "dream", "ocean", "tiger", "falcon", "copper"}
	domains = []string{"example.com", "example.org", "example.net"}
)

func longest(list []string) int {
	n := 0
	for _, s := range list {
		n = max(n, len(s))
	}
	return n
}
